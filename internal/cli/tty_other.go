//go:build !linux

package cli

// fdIsTerminal is false where tlsbench does not probe terminals: progress
// is then simply not shown.
func fdIsTerminal(fd uintptr) bool { return false }
