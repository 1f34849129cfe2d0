package proxy_test

import (
	"context"
	"crypto/tls"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/proxy"
)

// smallReceiveBuffer makes the sockets a listener accepts take little
// before their window closes: a peer that never reads stalls its sender
// after a few KiB rather than megabytes.
func smallReceiveBuffer(network, address string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
	})
	if err != nil {
		return err
	}
	return serr
}

// TestStalledWriteCut: an origin that never reads what it is sent, but
// sends a byte every 200 ms so that the tunnel never idles, and a client
// that never reads either: the proxy's writes to the origin stop moving,
// and the write timeout closes the tunnel (the idle timeout alone never
// would), with the cut counted and logged.
func TestStalledWriteCut(t *testing.T) {
	t.Parallel()
	cfg, ca := testpki.Server(t)
	lc := net.ListenConfig{Control: smallReceiveBuffer}
	raw, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := tls.NewListener(raw, cfg)
	defer ln.Close()
	stopTrickle := make(chan struct{})
	trickled := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			trickled <- err
			return
		}
		defer c.Close()
		if err := c.(*tls.Conn).Handshake(); err != nil {
			trickled <- err
			return
		}
		trickled <- trickle(c, stopTrickle)
	}()
	org := origin{port: raw.Addr().(*net.TCPAddr).Port, ca: ca, caFile: writeCA(t, ca)}
	const writeTimeout = 500 * time.Millisecond
	p := startProxy(t, org, proxy.Options{IdleTimeout: time.Second, WriteTimeout: writeTimeout, MintCache: true})
	tc := p.tunnel(t, org, nil)
	defer tc.Close()
	wrote := make(chan error, 1)
	go func() {
		// Bounded: far more than the socket buffers on the way hold.
		chunk := make([]byte, 64<<10)
		var err error
		for i := 0; i < 1024 && err == nil; i++ {
			_, err = tc.Write(chunk)
		}
		wrote <- err
	}()
	// The buffers fill within a few hundred ms; then the cut is due
	// within twice the write timeout.
	const bound = 4 * time.Second
	select {
	case err := <-wrote:
		if err == nil {
			t.Fatal("64 MiB went through to an origin that reads nothing")
		}
	case <-time.After(bound):
		close(stopTrickle)
		tc.NetConn().Close()
		<-wrote
		<-trickled
		t.Fatalf("the tunnel is still open %v after the client started writing to an origin that never reads", bound)
	}
	close(stopTrickle)
	<-trickled
	waitFor(t, "the relay to end", func() bool { return p.Counters().Active == 0 })
	if c := p.Counters(); c.Failures["relay:write-timeout"] != 1 {
		t.Errorf("failures %v: want one relay:write-timeout", c.Failures)
	}
	if log := p.log.String(); !strings.Contains(log, "stalled connection closed") || !strings.Contains(log, "to=origin") {
		t.Errorf("log lacks the cut of the stalled origin:\n%s", log)
	}
}

// trickle sends a byte every 200 ms until stop or an error, never
// reading.
func trickle(c net.Conn, stop <-chan struct{}) error {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return nil
		case <-tick.C:
		}
		c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write([]byte{'x'}); err != nil {
			return err
		}
	}
}
