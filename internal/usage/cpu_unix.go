//go:build unix

package usage

import (
	"time"

	"golang.org/x/sys/unix"
)

// SelfCPU returns the CPU time (user + system) this process has used.
func SelfCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
