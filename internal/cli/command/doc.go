// Package command is what every tlsbench command is built from: the
// flag set whose flags are defined from plan's settings table (their
// names, help and placeholders) and whose parse errors name the flag and
// the fix; usage errors and exit statuses (UsageError, exit 2; ErrHelp;
// InterruptedError, exit 130) and the one line main prints for an error;
// the mapping of library errors' fields to the flags that set them
// (UserText, FlagErrors); output files that replace FILE only when
// complete (OutFile); a whole process's CPU profile; the values several
// commands' flags share (log levels, key types, early data policies);
// and the hidden --control-fd channel of child services.
//
// It knows no command: the commands' packages import it, the root
// command (internal/cli) dispatches to them.
package command
