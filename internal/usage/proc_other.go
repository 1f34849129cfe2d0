//go:build !linux

package usage

import (
	"fmt"
	"runtime"
	"time"
)

// ProcessTreeCPU needs /proc; elsewhere it says so.
func ProcessTreeCPU(pid int) (time.Duration, error) {
	return 0, fmt.Errorf("another process's CPU is not measured on %s (needs /proc)", runtime.GOOS)
}

// IsAncestorOfSelf needs /proc; elsewhere it says so.
func IsAncestorOfSelf(pid int) (bool, error) {
	return false, fmt.Errorf("process ancestry is not read on %s (needs /proc)", runtime.GOOS)
}
