//go:build !linux

package usage

import (
	"fmt"
	"runtime"
	"time"
)

// ProcTick is the resolution of ProcessTreeCPU's readings (none are
// made here).
const ProcTick = 10 * time.Millisecond

// ProcessTreeCPU needs /proc; elsewhere it says so.
func ProcessTreeCPU(pid int) (time.Duration, error) {
	return 0, fmt.Errorf("another process's CPU is not measured on %s (needs /proc)", runtime.GOOS)
}

// IsAncestorOfSelf needs /proc; elsewhere it says so.
func IsAncestorOfSelf(pid int) (bool, error) {
	return false, fmt.Errorf("process ancestry is not read on %s (needs /proc)", runtime.GOOS)
}

// ProcessTree needs /proc; elsewhere it says so.
func ProcessTree(pid int) ([]int, error) {
	return nil, fmt.Errorf("another process's descendants are not found on %s (needs /proc)", runtime.GOOS)
}

// EffectiveUID needs /proc; elsewhere it says so.
func EffectiveUID(pid int) (int, error) {
	return 0, fmt.Errorf("another process's user is not read on %s (needs /proc)", runtime.GOOS)
}
