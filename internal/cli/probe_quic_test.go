package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli"
	"github.com/tlsbench/tlsbench/probe"
)

// TestProbeQUICServe probes `tlsbench serve --quic` over QUIC through the
// CLI under its default early-data policy (single-use: a reused ticket
// and a replayed flight have their early data refused) and under
// --early-data-policy accept: JSON that decodes into a report whose
// early-data findings follow the policy, the table, exit 0, the server's
// own summary of what it accepted, and its warning under accept alone.
func TestProbeQUICServe(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name               string
		args               []string
		reuse, replay      probe.Status
		accepted, rejected string
	}{
		{"accept", []string{"--early-data-policy", "accept"}, probe.Yes, probe.Yes, "accepted 2", "rejected 0"},
		{"default", nil, probe.No, probe.No, "accepted 2", "rejected 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			addr, ca, stop := runServe(t, append([]string{"--quic"}, tt.args...)...)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			common := []string{"probe", "--quic", addr, "--ca", ca, "--sni", "localhost", "--request", "ping", "--ticket-wait", "100ms"}
			var stdout, stderr bytes.Buffer
			err := cli.Run(ctx, append(common, "--format", "json"), &stdout, &stderr)
			if code := cli.ExitCode(err); code != 0 {
				t.Fatalf("exit %d: %v\n%s", code, err, stderr.String())
			}
			var rep probe.Report
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || rep.QUIC == nil {
				t.Fatalf("JSON output (%v):\n%s", err, stdout.String())
			}
			q := rep.QUIC
			if q.Handshake.Status != probe.Yes || q.ALPN != "tlsbench-ping" || q.EarlyData.Status != probe.Yes ||
				q.EarlyDataReuse.Status != tt.reuse || q.Replay.Status != tt.replay {
				t.Errorf("handshake %s, ALPN %q, early data %s, reuse %s (%s), replay %s (%s)", q.Handshake.Status, q.ALPN,
					q.EarlyData.Status, q.EarlyDataReuse.Status, q.EarlyDataReuse.Detail, q.Replay.Status, q.Replay.Detail)
			}
			log := stop()
			if !strings.Contains(log, tt.accepted) || !strings.Contains(log, tt.rejected) {
				t.Errorf("server's summary:\n%s\nwant early data %s, %s", log, tt.accepted, tt.rejected)
			}
			const warning = "tlsbench: WARNING: --early-data-policy accept accepts replayed 0-RTT data"
			if warned := strings.Contains(log, warning); warned != (tt.name == "accept") {
				t.Errorf("server's stderr:\n%s\nwarned of replays %v, want %v", log, warned, !warned)
			}
		})
	}
}

// TestProbeQUICExitCodes: flags that do not fit --quic exit 2; a probe
// that reached nothing that speaks QUIC exits 1, its report printed.
func TestProbeQUICExitCodes(t *testing.T) {
	t.Parallel()
	silent, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	closed, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.LocalAddr().String()
	closed.Close()
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"probe", "--quic", "127.0.0.1:1", "--tls", "1.2"}, 2, "--tls: QUIC carries TLS 1.3 only"},
		{[]string{"probe", "--quic", "127.0.0.1:1", "--request", "line"}, 2, "--request line: over QUIC"},
		{[]string{"probe", "--quic", "127.0.0.1:1", "--concurrency", "4"}, 2, "--concurrency: the resumption-rate test runs over TCP only"},
		{[]string{"probe", "--quic", silent.LocalAddr().String(), "--insecure", "--timeout", "300ms"}, 1, "no QUIC handshake completed"},
		{[]string{"probe", "--quic", closedAddr, "--insecure"}, 1, "nothing listens on the port"},
	} {
		checkExit(t, tt.args, tt.code, tt.msg)
	}
}
