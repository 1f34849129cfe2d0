package usage

import "time"

// Work measures the CPU time one goroutine spends on one piece of work
// (a connection's handshake, say) inside a process that does many at
// once, which the process's own CPU time cannot tell apart. It reads
// the CPU clock of the thread the goroutine runs on at the edges of the
// stretches in which the goroutine computes: from Resume to Pause.
// Between them the goroutine must not block (a Pause before each read
// that may wait for the network, a Resume after it), so that it stays
// on one thread; a stretch in which it moved to another thread anyway
// (the Go scheduler preempted it) is not counted, and counted as Lost.
//
// What it measures leaves out the blocking calls themselves and
// everything the process does outside the work (the runtime, the
// garbage collector, other goroutines): a part, to be set against the
// process's CPU time, not a replacement for it. Each edge costs two
// system calls (the thread's clock and its id), a microsecond or less.
type Work struct {
	tid     int
	started time.Duration
	on      bool
	// CPU is the CPU time of the stretches measured; Lost counts the
	// stretches that could not be.
	CPU  time.Duration
	Lost int
}

// Resume starts a stretch of computing on the calling thread.
func (w *Work) Resume() {
	w.tid, w.started = threadCPU()
	w.on = w.tid != 0
}

// Pause ends the stretch Resume started, if any, and adds it to CPU.
func (w *Work) Pause() {
	if !w.on {
		return
	}
	w.on = false
	tid, now := threadCPU()
	if tid == 0 || tid != w.tid || now < w.started {
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
