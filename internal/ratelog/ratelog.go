package ratelog

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Default limit of a per-connection log: a flood of bad clients must not
// turn into a flood of log lines (or of disk writes).
const (
	DefaultBurst  = 10
	DefaultWindow = time.Second
)

// Handler passes at most burst records per window to next and counts
// the others; one line at the end of the window says how many were
// dropped, so nothing disappears without a trace.
type Handler struct {
	next slog.Handler
	st   *limitState // shared by the handlers WithAttrs and WithGroup derive
}

type limitState struct {
	burst  int
	window time.Duration
	out    slog.Handler // where the summary goes: the undecorated handler

	mu         sync.Mutex
	start      time.Time
	n          int
	suppressed int
	timer      *time.Timer
}

// New returns a handler that passes at most burst records per window to
// next.
func New(next slog.Handler, burst int, window time.Duration) *Handler {
	return &Handler{next: next, st: &limitState{burst: burst, window: window, out: next}}
}

func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	return &Handler{next: h.next.WithAttrs(as), st: h.st}
}

func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{next: h.next.WithGroup(name), st: h.st}
}

func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	st := h.st
	st.mu.Lock()
	now := time.Now()
	if now.Sub(st.start) >= st.window {
		st.flushLocked(now)
		st.start, st.n = now, 0
	}
	if st.n < st.burst {
		st.n++
		st.mu.Unlock()
		return h.next.Handle(ctx, r)
	}
	st.suppressed++
	if st.timer == nil {
		st.timer = time.AfterFunc(st.start.Add(st.window).Sub(now), st.flush)
	}
	st.mu.Unlock()
	return nil
}

func (st *limitState) flush() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.flushLocked(time.Now())
}

// flushLocked writes the count of the dropped lines, if any.
func (st *limitState) flushLocked(now time.Time) {
	if st.timer != nil {
		st.timer.Stop()
		st.timer = nil
	}
	if st.suppressed == 0 {
		return
	}
	r := slog.NewRecord(now, slog.LevelWarn, "log lines suppressed: too many in one second", 0)
	r.AddAttrs(slog.Int("suppressed", st.suppressed))
	st.out.Handle(context.Background(), r)
	st.suppressed = 0
}

// Flush writes the count of the lines dropped in the current window, if
// any, at once: for the end of a server, whose last window would
// otherwise be reported by a timer after the process has gone.
func (h *Handler) Flush() { h.st.flush() }
