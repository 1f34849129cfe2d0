package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/tlsbench/tlsbench/internal/connerr"
)

// relay moves bytes both ways until both directions have ended, or one
// fails, the connection idles past IdleTimeout, or ctx ends.
func (p *Proxy) relay(ctx context.Context, s *session, client, origin *leg) {
	if err := p.chooseModes(client, origin); err != nil {
		p.c.add(p.c.failures, kindKernel(err))
		p.connLog.Warn("connection closed", "remote", remoteAddr(client.tcp), "reason", clip(err.Error()))
		s.abort()
		return
	}
	p.c.add(p.c.relay, "client:"+client.mode)
	p.c.add(p.c.relay, "origin:"+origin.mode)
	w := newWatchdog(p.o.IdleTimeout, p.o.WriteTimeout, []*leg{client, origin}, func(stalled *leg) {
		if s.firstFailure() {
			p.cutLog(client, stalled)
		}
		s.abort()
	})
	defer w.stop()
	if ctx.Err() != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.direction(s, origin, client, &p.c.toOrigin, w)
	}()
	p.direction(s, client, origin, &p.c.toClient, w)
	<-done
}

// cutLog counts and logs a relay the watchdog closes: idle (stalled
// nil), or stalled writing to a peer that takes nothing. A stall is
// what a peer that holds tunnels open on purpose causes: logged at info
// level, rate-limited.
func (p *Proxy) cutLog(client, stalled *leg) {
	if stalled == nil {
		p.c.add(p.c.failures, "relay:idle")
		p.connLog.Debug("idle connection closed", "remote", remoteAddr(client.tcp), "idle", p.o.IdleTimeout)
		return
	}
	p.c.add(p.c.failures, "relay:write-timeout")
	p.connLog.Info("stalled connection closed", "remote", remoteAddr(client.tcp), "to", stalled.name,
		"reason", fmt.Sprintf("the %s took none of the bytes waiting for it for %v", stalled.name, p.o.WriteTimeout))
}

// direction relays src to dst. At src's clean end it ends dst's half and
// returns, leaving the other direction to finish; on an error it closes
// both legs.
func (p *Proxy) direction(s *session, dst, src *leg, count *atomic.Int64, w *watchdog) {
	var err error
	if dst.mode == ModeSplice && src.mode == ModeSplice {
		err = p.splice(dst, src, count, w)
	} else {
		err = p.copy(dst, src, count, w)
	}
	if errors.Is(err, errNoCloseNotify) {
		// Passed on as it came, a FIN without close_notify, so that the
		// other peer can tell a cut from a complete stream as well as
		// the proxy could.
		p.c.add(p.c.failures, src.name+":no-close-notify")
		if cw, ok := dst.tcp.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil {
			return
		}
	}
	if err == nil {
		err = dst.closeWrite()
		if err == nil {
			return
		}
		// Could not pass the end on: nothing more can be relayed.
	}
	if s.firstFailure() {
		p.c.add(p.c.failures, "relay:"+connerr.Kind(err))
		p.connLog.Debug("relay ended", "remote", remoteAddr(src.tcp), "from", src.name, "err", clip(err.Error()))
	}
	s.abort()
}

// copy is the relay through this process: a read (or, with ReadFill,
// reads until the buffer is full or nothing more is ready), then one
// write. The buffer is the connection's own for its life; nothing is
// allocated per read. It returns nil at src's clean end.
func (p *Proxy) copy(dst, src *leg, count *atomic.Int64, w *watchdog) error {
	bp := p.bufs.Get().(*[]byte)
	defer p.bufs.Put(bp)
	buf := *bp
	for {
		n, err := p.read(src, buf)
		if n > 0 {
			w.touch()
			if _, werr := dst.rw.Write(buf[:n]); werr != nil {
				return writeError{werr}
			}
			count.Add(int64(n))
			p.c.userSpace.Add(int64(n))
		}
		if err == io.EOF {
			if src.mode == ModeUser && src.lc.eof || src.mode != ModeUser && src.k.cut() {
				return errNoCloseNotify
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// errNoCloseNotify is a leg whose peer ended TCP without a close_notify.
// crypto/tls (and the kernel's TLS) reports that as a clean end when it
// falls on a record boundary (as many servers end that way); the relay
// passes it on as it came.
var errNoCloseNotify = errors.New("the peer closed without close_notify")

// read reads src into buf. Without ReadFill it is one read. With it, it
// goes on reading while more is immediately available: crypto/tls
// returns one record's plaintext per Read, so the next Read is made in
// "try" mode (legConn.try), where the socket is read without waiting:
// a record crypto/tls holds already is returned, and an empty socket
// ends the fill with errWouldBlock. That costs one failed read system
// call per fill, and no timer: a short read deadline would cost a timer
// per fill and still wait. Bytes of a record that has not fully arrived
// stay with crypto/tls for the next (blocking) Read. On a kernel TLS leg
// one read already returns every record the kernel has decrypted, up to
// the buffer: nothing to add.
func (p *Proxy) read(src *leg, buf []byte) (int, error) {
	n, err := src.rw.Read(buf)
	if !p.o.ReadFill || err != nil || src.mode != ModeUser {
		return n, err
	}
	for n < len(buf) {
		src.lc.try = true
		m, err := src.tls.Read(buf[n:])
		src.lc.try = false
		n += m
		if err != nil {
			if errors.Is(err, errWouldBlock) {
				return n, nil
			}
			return n, err
		}
	}
	return n, nil
}

// writeError marks an error of the writing side.
type writeError struct{ err error }

func (e writeError) Error() string { return "write: " + e.err.Error() }
func (e writeError) Unwrap() error { return e.err }

// watchdog closes a relay in which neither direction moved a byte for
// idle, or in which a leg's socket held bytes for its peer that the peer
// did not take (acknowledge) for write. The directions mark activity
// with one atomic flag, checked every tick: no timer is reset per read.
// A write stall is read from the kernel (sendState) at each tick, so
// writes cost nothing more. A relay is cut between idle and idle plus a
// tick after its last byte, and between write and write plus two ticks
// after its peer last took a byte.
type watchdog struct {
	active  atomic.Bool
	stopped atomic.Bool
	idle    time.Duration
	write   time.Duration
	tick    time.Duration
	last    time.Time
	legs    []legWatch
	t       *time.Timer
	fire    func(stalled *leg) // nil: idle
}

// legWatch is what the watchdog last saw of a leg's sending; only check
// touches it.
type legWatch struct {
	l        *leg
	acked    uint64    // bytes the peer had acknowledged
	progress time.Time // when the peer was last seen taking bytes, or none waiting
}

// minTick is the least time between two checks of a watchdog, whatever
// its timeouts: a tick of nanoseconds would spend a core on one relay.
const minTick = 10 * time.Millisecond

func newWatchdog(idle, write time.Duration, legs []*leg, fire func(*leg)) *watchdog {
	now := time.Now()
	w := &watchdog{idle: idle, write: write, tick: max(min(idle/2, write/4), minTick), last: now, fire: fire}
	for _, l := range legs {
		w.legs = append(w.legs, legWatch{l: l, progress: now})
	}
	// Armed only once w.t is set: check reads it.
	w.t = time.AfterFunc(time.Hour, w.check)
	w.t.Reset(w.tick)
	return w
}

// touch marks activity; it writes only when the flag is clear, so the
// two directions do not contend for the cache line on every read.
func (w *watchdog) touch() {
	if !w.active.Load() {
		w.active.Store(true)
	}
}

func (w *watchdog) check() {
	if w.stopped.Load() {
		return
	}
	now := time.Now()
	if w.active.Swap(false) {
		w.last = now
	} else if now.Sub(w.last) >= w.idle {
		w.fire(nil)
		return
	}
	for i := range w.legs {
		if l := w.stalled(&w.legs[i], now); l != nil {
			w.fire(l)
			return
		}
	}
	w.t.Reset(w.tick)
}

// stalled returns lw's leg when its peer has taken none of the bytes
// waiting for it for the write timeout.
func (w *watchdog) stalled(lw *legWatch, now time.Time) *leg {
	acked, waiting, ok := sendState(lw.l.tcp)
	switch {
	case !ok:
		return nil
	case !waiting || acked != lw.acked:
		lw.acked, lw.progress = acked, now
	case now.Sub(lw.progress) >= w.write:
		return lw.l
	}
	return nil
}

func (w *watchdog) stop() {
	w.stopped.Store(true)
	w.t.Stop()
}
