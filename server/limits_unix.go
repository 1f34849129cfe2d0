//go:build unix

package server

import "syscall"

// descriptorLimit is the process's soft RLIMIT_NOFILE.
func descriptorLimit() (int64, bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, false
	}
	// RLIM_INFINITY is all ones, huge as an unsigned value: the
	// ceiling of DefaultMaxConns applies.
	return int64(min(uint64(rl.Cur), 1<<40)), true
}
