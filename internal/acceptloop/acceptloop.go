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
// them when ctx is done). Transient accept failures (timeouts, out of
// file descriptors) are logged on log and retried after a growing pause,
// up to a second, instead of spinning, as net/http does; any other
// failure ends Serve with it.
func Serve(ctx context.Context, ln net.Listener, log *slog.Logger, handle func(context.Context, net.Conn)) error {
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var conns sync.WaitGroup
	defer conns.Wait()
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
		conns.Add(1)
		go func() {
			defer conns.Done()
			handle(ctx, c)
		}()
	}
}
