package usage

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU returns the calling thread's id and CPU time (user +
// system), or a zero id when they cannot be read.
func threadCPU() (int, time.Duration) {
	var ts unix.Timespec
	tid := unix.Gettid()
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, 0
	}
	return tid, time.Duration(ts.Nano())
}
