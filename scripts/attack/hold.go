//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// holdFor is how long held connections stay: past the targets' 10 s
// handshake limit, so that a limit that works shows as connections cut.
const holdFor = 12 * time.Second

// held is a set of connections the harness keeps open, and when the
// target closed each.
type held struct {
	conns    []net.Conn
	openErrs int
	start    time.Time
	mu       sync.Mutex
	cutAt    []time.Duration // since start, of each connection the target closed
	wg       sync.WaitGroup
	answers  map[string]int // the first line the target sent, on those it answered
	// dataExpected is set where the target relays bytes: they are
	// traffic, not an answer.
	dataExpected bool
}

// noteAnswer counts what the target sent first on a held connection: a
// refusal (503) is not the same as a cut.
func (h *held) noteAnswer(b []byte) {
	line, _, _ := strings.Cut(string(b), "\r\n")
	if len(line) > 0 && line[0] < ' ' {
		line = fmt.Sprintf("TLS record type %d", line[0])
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.answers == nil {
		h.answers = map[string]int{}
	}
	h.answers[oneLine(strings.TrimPrefix(line, "HTTP/1.1 "))]++
}

// openConns dials n connections to addr, 100 at a time, and watches each
// for the target's close.
func openConns(ctx context.Context, addr string, n int) *held {
	h := &held{conns: make([]net.Conn, n)}
	sem := make(chan struct{}, 100)
	var errs atomic.Int64
	var wg sync.WaitGroup
	d := &net.Dialer{Timeout: 5 * time.Second}
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			c, err := d.DialContext(ctx, "tcp", addr)
			if err != nil {
				errs.Add(1)
				return
			}
			h.conns[i] = c
		}()
	}
	wg.Wait()
	h.openErrs = int(errs.Load())
	h.start = time.Now()
	for _, c := range h.conns {
		if c != nil {
			h.watch(c)
		}
	}
	return h
}

// watch reads c until the target closes it (or the harness does).
func (h *held) watch(c io.Reader) {
	h.wg.Add(1)
	go h.readToEnd(c)
}

func (h *held) readToEnd(c io.Reader) {
	defer h.wg.Done()
	buf := make([]byte, 512)
	answered := false
	for {
		n, err := c.Read(buf)
		if n > 0 && !answered && !h.dataExpected {
			answered = true
			h.noteAnswer(buf[:n])
		}
		if err != nil {
			if !answered { // an answer (a refusal) then a close is not a silent cut
				h.mu.Lock()
				h.cutAt = append(h.cutAt, time.Since(h.start))
				h.mu.Unlock()
			}
			return
		}
	}
}

// cutSoFar counts the connections the target closed until now.
func (h *held) cutSoFar() (n int, first, last time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, d := range h.cutAt {
		if i == 0 || d < first {
			first = d
		}
		last = max(last, d)
	}
	return len(h.cutAt), first, last
}

// awaitEnds waits until the target has closed every watched connection,
// the deadline passes or ctx ends. An attack whose own writes end at the
// target's cut calls it before release: the writer sees the reset before
// the reader of the same connection has counted it.
func (h *held) awaitEnds(ctx context.Context, deadline time.Time) {
	ended := make(chan struct{})
	go func() { h.wg.Wait(); close(ended) }()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-ended:
	case <-t.C:
	case <-ctx.Done():
	}
}

// release closes what is left and describes what the target did.
func (h *held) release() string {
	n, first, last := h.cutSoFar()
	for _, c := range h.conns {
		if c != nil {
			closeAbort(c)
		}
	}
	h.wg.Wait()
	opened := len(h.conns) - h.openErrs
	s := fmt.Sprintf("%d/%d opened", opened, len(h.conns))
	if n == 0 {
		s += fmt.Sprintf(", none cut in %.0f s", holdFor.Seconds())
	} else {
		s += fmt.Sprintf(", %d cut by the target (first at %.1f s, last at %.1f s)", n, first.Seconds(), last.Seconds())
	}
	for line, k := range h.answers {
		s += fmt.Sprintf(", %d answered %q", k, line)
	}
	return s
}

// idleConns holds n connections that send nothing.
func idleConns(n int) func(context.Context, *config, *target, func()) string {
	return func(ctx context.Context, _ *config, t *target, inEffect func()) string {
		h := openConns(ctx, t.addr, n)
		inEffect()
		sleepCtx(ctx, holdFor)
		return h.release()
	}
}

// slowloris holds n connections, each sending one more byte of a real
// ClientHello every second.
func slowloris(n int) func(context.Context, *config, *target, func()) string {
	return func(ctx context.Context, _ *config, t *target, inEffect func()) string {
		hello := clientHelloRecord()
		h := openConns(ctx, t.addr, n)
		inEffect()
		for sec := 0; sec < int(holdFor/time.Second) && ctx.Err() == nil; sec++ {
			tick := time.Now()
			for _, c := range h.conns {
				if c != nil {
					c.SetWriteDeadline(time.Now().Add(10 * time.Millisecond))
					c.Write(hello[sec : sec+1])
				}
			}
			sleepCtx(ctx, time.Second-time.Since(tick))
		}
		return h.release()
	}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
