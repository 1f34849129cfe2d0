package cli_test

import (
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/peers"
)

// TestServeQUICWithNgtcp2: ngtcp2's HTTP/3 client (gtlsclient, over
// GnuTLS) makes a full handshake with `tlsbench serve --quic`, then
// resumes it and sends its request as early data: accepted under
// accept, refused under reject (the client says so and asks again);
// the server's summary counts it as the client saw it.
func TestServeQUICWithNgtcp2(t *testing.T) {
	t.Parallel()
	gtlsclient := peers.Require(t, "gtlsclient")
	for _, tc := range []struct {
		policy   string
		accepted bool
	}{
		{"accept", true},
		{"reject", false},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			t.Parallel()
			addr, _, stop := runServe(t, "--quic", "--early-data-policy", tc.policy)
			host, port, _ := net.SplitHostPort(addr)
			dir := t.TempDir()
			get := func() string {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, gtlsclient, "--exit-on-all-streams-close",
					"--session-file", filepath.Join(dir, "session.pem"), "--tp-file", filepath.Join(dir, "tp.txt"),
					host, port, "https://localhost/")
				out, err := cmd.CombinedOutput()
				if err != nil || !strings.Contains(string(out), ":status: 200") || !strings.Contains(string(out), "Negotiated ALPN is h3") {
					t.Fatalf("gtlsclient: %v; want an HTTP/3 200; its last lines:\n%s", err, tail(string(out), 20))
				}
				return string(out)
			}
			zeroRTT := regexp.MustCompile(`(?m)pkt tx .* type=0RTT`)
			if out := get(); zeroRTT.MatchString(out) {
				t.Error("the first connection sent early data without a session")
			}
			out := get()
			rejected := strings.Contains(out, "Early data was rejected by server")
			if !zeroRTT.MatchString(out) || rejected == tc.accepted {
				t.Errorf("second connection: sent early data %v, client saw it rejected %v; want sent, rejected %v",
					zeroRTT.MatchString(out), rejected, !tc.accepted)
			}
			wantCounts := "served 2 handshakes (1 resumed), 0 failed; over QUIC 2, early data offered 1, accepted 1, rejected 0"
			if !tc.accepted {
				wantCounts = "served 2 handshakes (1 resumed), 0 failed; over QUIC 2, early data offered 1, accepted 0, rejected 1"
			}
			if log := stop(); !strings.Contains(log, wantCounts) {
				t.Errorf("server's summary:\n%s\nwant %q", log, wantCounts)
			}
		})
	}
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestServeQUICPortTaken: serve --quic whose UDP port is taken (its TCP
// namesake free) does not start, and says which port and what to do.
func TestServeQUICPortTaken(t *testing.T) {
	t.Parallel()
	var addr string
	for range 20 {
		u, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		if ln, err := net.Listen("tcp", u.LocalAddr().String()); err == nil {
			ln.Close()
			addr = u.LocalAddr().String()
			defer u.Close()
			break
		}
		u.Close()
	}
	if addr == "" {
		t.Fatal("no UDP port with a free TCP port of the same number")
	}
	checkExit(t, []string{"serve", "--quic", "--listen", addr, "--pki-dir", t.TempDir()}, 2,
		"--quic: UDP "+addr+" is already in use (the TCP port is free); choose another --listen port")
}
