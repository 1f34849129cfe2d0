//go:build !linux

package command

// IsTerminal is false where tlsbench does not probe terminals: a table
// then has every column, and progress is not shown.
func IsTerminal(fd uintptr) bool { return false }

// TerminalWidth is 0 (no width) where terminals are not asked.
func TerminalWidth(fd uintptr) int { return 0 }
