package server

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Default limit of the per-connection log: a flood of bad clients must not
// turn into a flood of log lines (or of disk writes).
const (
	defaultLogBurst  = 10
	defaultLogWindow = time.Second
)

// limitHandler passes at most burst records per window to next and counts
// the others; one line at the end of the window says how many were
// dropped, so nothing disappears without a trace.
type limitHandler struct {
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

func newLimitHandler(next slog.Handler, burst int, window time.Duration) *limitHandler {
	return &limitHandler{next: next, st: &limitState{burst: burst, window: window, out: next}}
}

func (h *limitHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *limitHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &limitHandler{next: h.next.WithAttrs(as), st: h.st}
}

func (h *limitHandler) WithGroup(name string) slog.Handler {
	return &limitHandler{next: h.next.WithGroup(name), st: h.st}
}

func (h *limitHandler) Handle(ctx context.Context, r slog.Record) error {
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
