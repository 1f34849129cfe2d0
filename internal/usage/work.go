package usage

import (
	"sync/atomic"
	"time"
)

// Work measures the CPU time one goroutine spends on one piece of work
// (a connection's handshake, say) inside a process that does many at
// once, which the process's own CPU time cannot tell apart. It reads
// the CPU clock of the thread the goroutine runs on at the edges of the
// stretches in which the goroutine computes: from Resume to Pause.
// Between them the goroutine must not block (a Pause before each read
// that may wait for the network, a Resume after it): while it waits,
// the Go scheduler runs other goroutines on its thread, whose CPU time
// the thread's clock counts.
//
// A stretch is counted only when it can be told apart: from its Resume
// to its Pause the goroutine stayed on one thread, and no other stretch
// began or ended on that thread. The others are counted in Lost and
// their time left out: one in which the goroutine moved to another
// thread (the scheduler preempted it, or it waited for a lock), and one
// that waited and came back to the same thread after another goroutine
// measured a stretch there (the two would count the same time).
//
// What it cannot see is a wait inside a stretch during which the thread
// ran only code that measures nothing (a goroutine dialling or closing,
// the runtime and its garbage collector) before the goroutine came back
// to it: that code's CPU time is counted as the stretch's, and not as
// Lost. The operating system counts a thread's time, not a goroutine's;
// Go does not say which goroutines a thread ran. Keeping the stretches
// free of waits keeps this rare: a lock contended, the collector asking
// the goroutine to help it.
//
// What it measures leaves out the blocking calls themselves and
// everything the process does outside the work: a part, to be set
// against the process's CPU time, not a replacement for it. Each edge
// costs two system calls (the thread's clock and its id) and one atomic
// operation, a microsecond or less.
type Work struct {
	tid     int
	started time.Duration
	on      bool
	// CPU is the CPU time of the stretches measured; Lost counts the
	// stretches that could not be.
	CPU  time.Duration
	Lost int
}

// owners holds, for each thread (by its id, modulo the table's size),
// the Work whose stretch last began on it, until that stretch ends: a
// stretch that finds another in its place at its end shared its thread.
// Two threads whose ids collide can only lose stretches, never count
// one wrongly. Each entry has a cache line of its own, so that threads
// on different cores do not contend for one.
var owners [ownerSlots]struct {
	w atomic.Pointer[Work]
	_ [56]byte
}

const ownerSlots = 512

// Resume starts a stretch of computing on the calling thread.
func (w *Work) Resume() {
	w.tid, w.started = threadCPU()
	w.on = w.tid != 0
	if w.on {
		owners[w.tid%ownerSlots].w.Store(w)
	}
}

// Pause ends the stretch Resume started, if any, and adds it to CPU.
func (w *Work) Pause() {
	if !w.on {
		return
	}
	w.on = false
	tid, now := threadCPU()
	if tid == 0 {
		w.Lost++
		return
	}
	// Swap, not compare: a stretch of another goroutine still open on
	// this thread has shared it with this one, and must not count it.
	owner := owners[tid%ownerSlots].w.Swap(nil)
	if tid != w.tid || owner != w || now < w.started {
		w.Lost++
		return
	}
	w.CPU += now - w.started
}

// Supported reports whether Work measures anything here.
func Supported() bool {
	tid, _ := threadCPU()
	return tid != 0
}
