package loadgen

import (
	"time"

	"golang.org/x/sys/unix"
)

// paceThread sets the calling thread's timer slack to its minimum: the
// kernel otherwise lets a sleep end up to 50 µs late, to batch wakeups.
func paceThread() {
	// Without it the pacing is only less precise, which the record's
	// start lateness shows.
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
}

// sleepFine sleeps d in the kernel, on the calling thread.
func sleepFine(d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	// An interrupted sleep ends early; the spin that follows covers
	// what is left, or the start is merely early by that much.
	_ = unix.Nanosleep(&ts, nil)
}
