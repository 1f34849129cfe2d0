package cli

import (
	"slices"

	"github.com/tlsbench/tlsbench/internal/callgrind"
	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/runner"
)

// validateCount checks --count: its one value, a built-in server in a
// process of its own to count, and valgrind to count it with.
func validateCount(f *runFlags) error {
	switch {
	case f.count == "":
		return nil
	case f.count != plan.CountInstructions:
		return command.Usagef("--count %q: the one thing counted is instructions (--count instructions)", f.count)
	case f.target.Addr != "":
		return command.Usagef("--count instructions counts the built-in server's instructions: drop --target, or --count")
	case slices.Contains(f.transports, runner.TransportMemory):
		return command.Usagef("--count instructions counts the built-in server in a process of its own: use --transport tcp, not memory")
	}
	if err := callgrind.Available(); err != nil {
		return command.Usagef("--count instructions: %v (Debian: apt-get install valgrind)", err)
	}
	return nil
}
