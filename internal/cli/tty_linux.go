package cli

import "github.com/tlsbench/tlsbench/internal/cli/command"

// The terminal is probed where the table's width is: in command.

func fdIsTerminal(fd uintptr) bool { return command.IsTerminal(fd) }

// terminalWidth is the width in columns of the terminal on fd, 0 when
// the terminal does not say.
func terminalWidth(fd uintptr) int { return command.TerminalWidth(fd) }
