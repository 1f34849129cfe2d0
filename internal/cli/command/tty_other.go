//go:build !linux

package command

// fdIsTerminal is false where tlsbench does not probe terminals: a
// table then has every column.
func fdIsTerminal(fd uintptr) bool { return false }

func terminalWidth(fd uintptr) int { return 0 }
