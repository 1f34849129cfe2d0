package proxy_test

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/proxy"
)

// pattern is n bytes that start with neither the bulk protocol's magic
// byte nor an HTTP method: the echo server echoes them.
func pattern(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(seed, seed))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	b[0] = 'x'
	return b
}

// TestRelayByteExact: a large stream each way through the proxy arrives
// byte for byte, at every buffer size, with and without read-fill; the
// client's end (close_notify) reaches the origin and the origin's end
// comes back.
func TestRelayByteExact(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	for _, buf := range []int{4 << 10, 16 << 10, 64 << 10} {
		for _, fill := range []bool{false, true} {
			t.Run(fmt.Sprintf("%dk/fill=%v", buf>>10, fill), func(t *testing.T) {
				t.Parallel()
				p := startProxy(t, org, proxy.Options{Buffer: buf, ReadFill: fill, MintCache: true})
				tc := p.tunnel(t, org, nil)
				tc.SetDeadline(time.Now().Add(2 * time.Minute))
				want := pattern(8<<20+12345, uint64(buf))
				werr := make(chan error, 1)
				go func() {
					// Odd sizes, so that records and buffers do not line up.
					var err error
					for rest := want; len(rest) > 0 && err == nil; {
						n := min(len(rest), 7001+rand.IntN(50000))
						_, err = tc.Write(rest[:n])
						rest = rest[n:]
					}
					if err == nil {
						err = tc.CloseWrite()
					}
					werr <- err
				}()
				got, err := io.ReadAll(tc)
				if err != nil {
					t.Fatalf("read after %d bytes: %v", len(got), err)
				}
				if err := <-werr; err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("got %d bytes back, want %d, equal prefix %d", len(got), len(want), commonPrefix(got, want))
				}
				waitFor(t, "the relay to end", func() bool { return p.Counters().Active == 0 })
				c := p.Counters()
				if c.BytesToOrigin != int64(len(want)) || c.BytesToClient != int64(len(want)) || c.UserSpaceBytes != 2*int64(len(want)) || len(c.Failures) != 0 {
					t.Errorf("counters %+v: want %d bytes each way, no failure", c, len(want))
				}
			})
		}
	}
}

func commonPrefix(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// TestOriginDiesMidStream: an origin that drops the connection in the
// middle of what it sends must not look like a clean end to the client
// (no close_notify from the proxy), and the proxy's goroutines end.
func TestOriginDiesMidStream(t *testing.T) {
	t.Parallel()
	cfg, ca := testpki.Server(t)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	served := make(chan struct{})
	go func() {
		defer close(served)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Write(pattern(100000, 1))
		// Abortive close: RST, no close_notify.
		c.(*tls.Conn).NetConn().(*net.TCPConn).SetLinger(0)
		c.(*tls.Conn).NetConn().Close()
	}()
	org := origin{port: ln.Addr().(*net.TCPAddr).Port, ca: ca}
	org.caFile = servertest.WriteCA(t, ca)
	p := startProxy(t, org, proxy.Options{MintCache: true})
	tc := p.tunnel(t, org, nil)
	tc.SetDeadline(time.Now().Add(time.Minute))
	got, err := io.ReadAll(tc)
	if err == nil {
		t.Fatalf("read %d bytes and a clean end; want the cut shown as an error", len(got))
	}
	<-served
	waitFor(t, "the relay to end", func() bool { return p.Counters().Active == 0 })
	if c := p.Counters(); c.Failures["relay:"+kindReset] == 0 && c.Failures["relay:"+kindEOF] == 0 {
		t.Errorf("failures %v: want the origin's cut counted", c.Failures)
	}
}

const (
	kindReset = "reset"
	kindEOF   = "eof"
)

// TestIdleTunnelCut: a tunnel in which neither side sends is closed after
// the idle timeout, and counted.
func TestIdleTunnelCut(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{IdleTimeout: 300 * time.Millisecond, MintCache: true})
	tc := p.tunnel(t, org, nil)
	tc.SetDeadline(time.Now().Add(time.Minute))
	_, err := tc.Read(make([]byte, 1))
	if err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("read on an idle tunnel: %v; want the connection cut without a clean end", err)
	}
	waitFor(t, "the relay to end", func() bool { return p.Counters().Active == 0 })
	if c := p.Counters(); c.Failures["relay:idle"] != 1 {
		t.Errorf("failures %v: want one relay:idle", c.Failures)
	}
}

// TestBusyTunnelNotCut: traffic in one direction keeps a tunnel alive
// past the idle timeout.
func TestBusyTunnelNotCut(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{IdleTimeout: 400 * time.Millisecond, MintCache: true})
	tc := p.tunnel(t, org, nil)
	tc.SetDeadline(time.Now().Add(time.Minute))
	buf := make([]byte, 1)
	for i := range 12 {
		if _, err := tc.Write([]byte{'x'}); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		if _, err := io.ReadFull(tc, buf); err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if c := p.Counters(); c.Failures["relay:idle"] != 0 {
		t.Errorf("failures %v: a busy tunnel was cut", c.Failures)
	}
}

// recorder keeps every byte read from a connection.
type recorder struct {
	net.Conn
	got []byte
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.Conn.Read(p)
	r.got = append(r.got, p[:n]...)
	return n, err
}

// alerts counts the alert records in a TLS 1.2 record stream.
func alerts(stream []byte) int {
	n := 0
	for len(stream) >= 5 {
		if stream[0] == 21 {
			n++
		}
		l := 5 + (int(stream[3])<<8 | int(stream[4]))
		if l > len(stream) {
			break
		}
		stream = stream[l:]
	}
	return n
}

// TestEndPassedOnAsItCame: an origin that ends with close_notify has its
// end passed on with one; one that only closes TCP (which crypto/tls
// accepts as an end at a record boundary) has it passed on without, so
// that the client can tell as well as the proxy could.
func TestEndPassedOnAsItCame(t *testing.T) {
	t.Parallel()
	for _, clean := range []bool{true, false} {
		cfg, ca := testpki.Server(t)
		ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("x-the whole answer"))
			if clean {
				c.Close()
			} else {
				c.(*tls.Conn).NetConn().Close()
			}
		}()
		org := origin{port: ln.Addr().(*net.TCPAddr).Port, ca: ca, caFile: servertest.WriteCA(t, ca)}
		p := startProxy(t, org, proxy.Options{MintCache: true})
		c, resp := connect(t, p.addr, "localhost:"+strconv.Itoa(org.port))
		if resp.StatusCode != 200 {
			t.Fatal(resp.Status)
		}
		rec := &recorder{Conn: c}
		tc := tls.Client(rec, &tls.Config{RootCAs: p.pool, ServerName: "localhost", MaxVersion: tls.VersionTLS12})
		got, err := io.ReadAll(tc)
		if err != nil || string(got) != "x-the whole answer" {
			t.Fatalf("clean %v: read %q, %v", clean, got, err)
		}
		want := 0
		if clean {
			want = 1
		}
		if n := alerts(rec.got); n != want {
			t.Errorf("origin ended cleanly %v: the client got %d alerts, want %d", clean, n, want)
		}
		tc.Close()
		waitFor(t, "the relay to end", func() bool { return p.Counters().Active == 0 })
		if n := p.Counters().Failures["origin:no-close-notify"]; n != int64(1-want) {
			t.Errorf("origin ended cleanly %v: no-close-notify counted %d", clean, n)
		}
	}
}
