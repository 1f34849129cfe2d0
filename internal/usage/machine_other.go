//go:build !linux

package usage

import (
	"fmt"
	"runtime"
)

// AllowedCPUs needs sched_getaffinity; elsewhere it says so, and the
// machine's load is reported as unknown.
func AllowedCPUs(pid int) (CPUSet, error) {
	return nil, fmt.Errorf("CPU affinity is not available on %s", runtime.GOOS)
}

// Machine needs /proc/stat; elsewhere it says so.
func Machine(cpus CPUSet) (MachineTimes, error) {
	return MachineTimes{}, fmt.Errorf("machine CPU times are not available on %s", runtime.GOOS)
}
