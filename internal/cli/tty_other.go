//go:build !linux

package cli

import (
	"os"
	"strconv"
)

// fdIsTerminal is false where tlsbench does not probe terminals: progress
// is then simply not shown.
func fdIsTerminal(fd uintptr) bool { return false }

// terminalWidth falls back to $COLUMNS where the terminal is not asked;
// 0 (lines not cut) without it.
func terminalWidth(fd uintptr) int {
	n, _ := strconv.Atoi(os.Getenv("COLUMNS"))
	return max(n, 0)
}
