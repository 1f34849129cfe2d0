package bulk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// StallGuard keeps a deadline on a connection that moves forward while
// data moves: a transfer may take any time, but no single read or write
// may stall for longer than the timeout. Tick is cheap enough to call per
// chunk (it looks at the clock every 16 calls). Once Ctx is done it stops
// extending and expires the deadline, so that a cancelled run does not
// wait for the transfer to end.
type StallGuard struct {
	Conn    net.Conn
	Timeout time.Duration
	Ctx     context.Context // optional
	calls   int
	next    time.Time
}

// Tick extends the deadline when it is due.
func (g *StallGuard) Tick() {
	if g == nil || g.Timeout <= 0 {
		return
	}
	g.calls++
	if g.calls&15 != 1 {
		return
	}
	if g.Ctx != nil && g.Ctx.Err() != nil {
		g.Conn.SetDeadline(time.Now())
		return
	}
	if now := time.Now(); now.After(g.next) {
		g.Conn.SetDeadline(now.Add(g.Timeout))
		g.next = now.Add(g.Timeout / 4)
	}
}

// SendPattern writes n bytes of the generated stream from phase, in
// writes of buf bytes.
func SendPattern(w io.Writer, n, phase int64, buf int, g *StallGuard) error {
	for sent := int64(0); sent < n; {
		m := int(min(int64(buf), n-sent))
		if _, err := w.Write(PatternAt(phase+sent, m)); err != nil {
			return fmt.Errorf("bulk: write after %d of %d bytes: %w", sent, n, err)
		}
		sent += int64(m)
		g.Tick()
	}
	return nil
}

// Receive reads exactly n bytes from r in reads of at most len(buf)
// bytes and checks them with v. It returns the bytes received; after an
// integrity error it goes on reading (drain) to the end without checking,
// when drain is set, so that the peer's writes complete and the verdict
// can still be exchanged.
func Receive(r io.Reader, n int64, buf []byte, v Verifier, drain bool, g *StallGuard) (int64, error) {
	var got int64
	var bad error
	for got < n {
		m := min(int64(len(buf)), n-got)
		k, err := r.Read(buf[:m])
		if k > 0 {
			if bad == nil {
				if bad = v.Check(buf[:k]); bad != nil && !drain {
					return got, bad
				}
			}
			got += int64(k)
			g.Tick()
		}
		if err != nil && got < n {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return got, fmt.Errorf("bulk: read after %d of %d bytes: %w", got, n, err)
		}
	}
	if bad != nil {
		return got, bad
	}
	return got, v.Done(n)
}
