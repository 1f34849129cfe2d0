package acceptloop

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// flakyListener fails its first accepts with EMFILE, as a listener out
// of descriptors does, then accepts from a real loopback listener.
type flakyListener struct {
	net.Listener
	fails atomic.Int32
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if l.fails.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: syscall.EMFILE}
	}
	return l.Listener.Accept()
}

// TestServe: transient failures are retried, every connection is
// handled, and Serve returns only after ctx ended and the handlers
// returned; another accept failure ends it with that error.
func TestServe(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fl := &flakyListener{Listener: ln}
	fl.fails.Store(3)
	ctx, cancel := context.WithCancel(context.Background())
	handled := make(chan struct{}, 1)
	var finished atomic.Bool
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, fl, slog.New(slog.DiscardHandler), func(ctx context.Context, c net.Conn) {
			defer c.Close()
			handled <- struct{}{}
			<-ctx.Done()
			time.Sleep(50 * time.Millisecond)
			finished.Store(true)
		})
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	select {
	case <-handled:
	case <-time.After(30 * time.Second):
		t.Fatal("the connection was never handled after the failed accepts")
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("Serve = %v after ctx ended, want nil", err)
	}
	if !finished.Load() {
		t.Error("Serve returned before its handler")
	}

	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln2.Close()
	if err := Serve(context.Background(), ln2, slog.New(slog.DiscardHandler), nil); err == nil || !errors.Is(err, net.ErrClosed) {
		t.Errorf("Serve on a closed listener = %v, want net.ErrClosed", err)
	}
}

// TestServeReusesWorkers: connections that come one after another are
// handled on the same goroutine (its stack kept), every one of them is
// handled, and Serve, ended by an accept failure rather than ctx, ends
// its idle workers rather than wait for them (here for an hour).
func TestServeReusesWorkers(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ids := make(chan string, 100)
	served := make(chan error, 1)
	go func() {
		served <- serve(context.Background(), ln, slog.New(slog.DiscardHandler), func(ctx context.Context, c net.Conn) {
			buf := make([]byte, 64)
			n := runtime.Stack(buf, false) // "goroutine N [running]:"
			ids <- strings.Fields(string(buf[:n]))[1]
			c.Write([]byte{1})
			c.Close()
		}, time.Hour)
	}()
	const conns = 20
	seen := map[string]bool{}
	for range conns {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err != nil {
			t.Fatal(err)
		}
		c.Close()
		seen[<-ids] = true
	}
	// A worker may still be between its handle and its wait when the next
	// connection arrives; one per connection would be conns.
	if len(seen) > conns/2 {
		t.Errorf("%d connections one after another were handled on %d goroutines, want them reused", conns, len(seen))
	}
	ln.Close()
	select {
	case err := <-served:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("Serve = %v after its listener closed, want net.ErrClosed", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after its listener closed: it waits for its idle workers")
	}
}
