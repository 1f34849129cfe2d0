package loadgen

import (
	"runtime"
	"time"
)

// The schedule's timing. Go's own timers wake a sleeper up to a
// millisecond late when the process is otherwise idle (the poller waits
// in whole milliseconds), which at thousands of starts per second would
// make the generator, not the server, the source of the lateness. So a
// window is paced from a goroutine locked to its own thread: long waits
// sleep on Go's timers (which frees the thread's processor for the
// connections), the last stretch sleeps in the kernel with the thread's
// timer slack at its minimum (pace_linux.go), and only the final few
// microseconds are spun, bounded by spinFor.

// spinFor is the most a start is waited for by spinning.
const spinFor = 20 * time.Microsecond

// coarseBefore is how far before a start Go's timers stop being used:
// more than they can overshoot.
const coarseBefore = 2 * time.Millisecond

// paced runs f on a goroutine locked to a thread that paceThread has
// prepared, and waits for it. The goroutine ends locked, so that its
// thread, with its changed timer slack, ends with it.
func paced(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		paceThread()
		f()
	}()
	<-done
}

// sleepUntil returns at t or shortly after, or at once when t is past.
func sleepUntil(t time.Time) {
	for {
		d := time.Until(t)
		switch {
		case d <= 0:
			return
		case d > coarseBefore:
			time.Sleep(d - coarseBefore*3/4)
		case d > spinFor:
			// A sleep a signal interrupts comes back here.
			sleepFine(d - spinFor)
		default:
			for time.Now().Before(t) {
			}
			return
		}
	}
}
