package server

import (
	"sync/atomic"

	"github.com/tlsbench/tlsbench/internal/usage"
)

// The server's CPU time is its process's, which a mix of full and
// resumed handshakes cannot split by kind. With WithHandshakeCPU, each
// handshake's goroutine measures its own time on its thread (usage.Work:
// paused while it waits in a read) and the server sums it by kind, so
// that the client can split the process's CPU between a mix's parts. It
// costs a few system calls per read of the handshake, which is why it
// is off unless asked for.

// Kinds of handshake in Counters.HandshakeCPU.
const (
	HandshakeFull    = "full"
	HandshakeResumed = "resumed"
)

// WithHandshakeCPU makes the server measure each handshake's CPU time by
// kind (Counters.HandshakeCPU).
func WithHandshakeCPU() Option {
	return func(s *Server) { s.handshakeCPU = new(handshakeCPU) }
}

// handshakeCPU sums the completed handshakes' measured CPU time.
type handshakeCPU struct {
	full, resumed, lost atomic.Int64
}

// add counts a completed handshake's work w; nothing without
// WithHandshakeCPU.
func (h *handshakeCPU) add(w *usage.Work, resumed bool) {
	if h == nil || w == nil {
		return
	}
	if w.Lost > 0 {
		h.lost.Add(1)
	}
	if resumed {
		h.resumed.Add(int64(w.CPU))
	} else {
		h.full.Add(int64(w.CPU))
	}
}

// counters fills c's HandshakeCPU fields.
func (h *handshakeCPU) counters(c *Counters) {
	if h == nil {
		return
	}
	c.HandshakeCPU = map[string]int64{HandshakeFull: h.full.Load(), HandshakeResumed: h.resumed.Load()}
	c.HandshakeCPULost = h.lost.Load()
}

// addUnmeasured counts a completed handshake whose work could not be
// measured: a QUIC handshake runs on quic-go's goroutines, between its
// packets, where the server has no hold on the thread.
func (h *handshakeCPU) addUnmeasured() {
	if h != nil {
		h.lost.Add(1)
	}
}
