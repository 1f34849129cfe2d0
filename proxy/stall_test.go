package proxy_test

import (
	"context"
	"crypto/tls"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
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

// smallBufferOrigin is a TLS origin listening on loopback whose
// connections have a small receive buffer, so that a peer's writes to
// one that reads slowly, or not at all, stall soon; closed when the test
// ends. ca verifies it.
func smallBufferOrigin(t *testing.T) (ln net.Listener, ca *pki.CA) {
	cfg, ca := testpki.Server(t)
	lc := net.ListenConfig{Control: smallReceiveBuffer}
	raw, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln = tls.NewListener(raw, cfg)
	t.Cleanup(func() { ln.Close() })
	return ln, ca
}

// TestStalledWriteCut: an origin that never reads what it is sent, but
// sends a byte every 200 ms so that the tunnel never idles, and a client
// that never reads either: the proxy's writes to the origin stop moving,
// and the write timeout closes the tunnel (the idle timeout alone never
// would), with the cut counted and logged.
func TestStalledWriteCut(t *testing.T) {
	t.Parallel()
	ln, ca := smallBufferOrigin(t)
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
	org := origin{port: ln.Addr().(*net.TCPAddr).Port, ca: ca, caFile: servertest.WriteCA(t, ca)}
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

// TestSlowReaderNotCut: an origin that reads slowly (4 KiB every
// 100 ms, behind a small receive buffer) but steadily, under a client
// that writes as fast as it can, always has bytes waiting for it; it
// takes some every tick, so a 500 ms write timeout does not cut the
// tunnel in 2.5 s.
func TestSlowReaderNotCut(t *testing.T) {
	t.Parallel()
	ln, ca := smallBufferOrigin(t)
	stop := make(chan struct{})
	var got atomic.Int64
	read := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			read <- err
			return
		}
		defer c.Close()
		read <- slowRead(c, &got, stop)
	}()
	org := origin{port: ln.Addr().(*net.TCPAddr).Port, ca: ca, caFile: servertest.WriteCA(t, ca)}
	p := startProxy(t, org, proxy.Options{WriteTimeout: 500 * time.Millisecond, MintCache: true})
	tc := p.tunnel(t, org, nil)
	wrote := make(chan error, 1)
	go func() {
		// Bounded: more than 2.5 s of slow reading takes.
		chunk := make([]byte, 16<<10)
		var err error
		for i := 0; i < 1024 && err == nil; i++ {
			_, err = tc.Write(chunk)
		}
		wrote <- err
	}()
	time.Sleep(2500 * time.Millisecond)
	c := p.Counters()
	close(stop)
	tc.NetConn().Close()
	<-wrote
	if err := <-read; err != nil {
		t.Errorf("origin: %v", err)
	}
	if c.Failures["relay:write-timeout"] != 0 || c.Active != 1 {
		t.Errorf("counters %+v: a tunnel whose origin reads slowly but steadily was cut", c)
	}
	if n := got.Load(); n < 64<<10 {
		t.Errorf("the origin read %d bytes in 2.5 s; want the tunnel busy (at least 64 KiB)", n)
	}
}

// slowRead reads up to 4 KiB every 100 ms until stop, counting the
// bytes in got.
func slowRead(c net.Conn, got *atomic.Int64, stop <-chan struct{}) error {
	if err := c.(*tls.Conn).Handshake(); err != nil {
		return err
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	buf := make([]byte, 4096)
	for {
		select {
		case <-stop:
			return nil
		case <-tick.C:
		}
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := c.Read(buf)
		got.Add(int64(n))
		if err != nil {
			return err
		}
	}
}

// TestIdleTunnelNotCutByWriteTimeout: in a tunnel where nothing is sent,
// nothing waits for either peer: the write timeout (200 ms) leaves it
// alone, and only the idle timeout (1.5 s) closes it.
func TestIdleTunnelNotCutByWriteTimeout(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{WriteTimeout: 200 * time.Millisecond, IdleTimeout: 1500 * time.Millisecond, MintCache: true})
	tc := p.tunnel(t, org, nil)
	defer tc.Close()
	time.Sleep(time.Second)
	if c := p.Counters(); c.Active != 1 || len(c.Failures) != 0 {
		t.Fatalf("counters %+v: an idle tunnel was cut within 1 s, before its idle timeout", c)
	}
	waitFor(t, "the idle cut", func() bool { return p.Counters().Active == 0 })
	if c := p.Counters(); c.Failures["relay:idle"] != 1 || c.Failures["relay:write-timeout"] != 0 {
		t.Errorf("failures %v: want one relay:idle and no write timeout", c.Failures)
	}
}
