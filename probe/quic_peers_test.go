package probe_test

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/probe"
)

// startGtlsserver starts ngtcp2's example HTTP/3 server over GnuTLS
// (Debian's ngtcp2-server) with the test PKI's server identity, on a
// free UDP port of 127.0.0.1, until the test ends; its output is shown
// when the test fails.
func startGtlsserver(t *testing.T, p *testPKI) string {
	t.Helper()
	bin := peers.Require(t, "gtlsserver")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("tlsbench\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr().String()
	pc.Close()
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "--quiet", "--htdocs", dir, "127.0.0.1", port, p.KeyFile, p.CertFile)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("gtlsserver's output:\n%s", out.String())
		}
	})
	// A QUIC server announces nothing: wait until its port is taken.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		pc, err := net.ListenPacket("udp", addr)
		if errors.Is(err, syscall.EADDRINUSE) {
			return addr
		}
		if err == nil {
			pc.Close()
		}
		select {
		case err := <-exited:
			t.Fatalf("gtlsserver exited (%v): %s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("gtlsserver did not bind %s", addr)
		}
	}
}

// ngtcp2's example server (HTTP/3 only, over GnuTLS): QUIC v1 (v2 is
// refused with Version Negotiation), one ticket per connection for six
// hours, allowing early data; it accepts early data, again on a ticket's
// second use, and in a replayed flight, which it acknowledges and
// answers (its anti-replay window does not stop a replay from another
// address seconds later).
func TestQUICNgtcp2Server(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	addr := startGtlsserver(t, p)
	for _, req := range []probe.Request{probe.RequestHTTP, probe.RequestHTTPGet} {
		o := quicOptions(p, addr)
		o.Request = req
		rep := runProbe(t, o)
		checkQUIC(t, rep, expectQUIC{Handshake: "yes", V1: "yes", V2: "no:Version Negotiation, listing", Tickets: "yes:21600 s",
			MaxEarlyData: "yes", Resumption: "yes", EarlyData: "yes:answered: HTTP/3.0 200 OK", Reuse: "yes",
			Replay: "yes:1-RTT packets alone", ALPN: probe.ALPNHTTP3, Response: "HTTP/3.0 200 OK"})
	}
}
