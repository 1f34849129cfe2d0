package cli

import (
	"runtime"
	"slices"

	"github.com/tlsbench/tlsbench/internal/callgrind"
	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/runner"
)

// The defaults of a case that counts instructions, where not given:
// callgrind runs the server about 50 times slower (a full TLS 1.3
// handshake takes about 7 ms on a 2-core machine), and the count, unlike
// the time, needs few handshakes to settle, so an iteration is 50
// handshakes (about 0.35 s) and a case 10 of them without a time cap or
// target error: about 4 s a side, warm-up included.
const (
	countHandshakes = 50
	countIterations = 10
)

// countDefaults applies them.
func countDefaults(fs *command.FlagSet, f *runFlags) {
	if f.count != plan.CountInstructions {
		return
	}
	if !fs.IsSet("handshakes") {
		f.handshakes = countHandshakes
	}
	if !fs.IsSet("iterations") {
		f.iterations = countIterations
	}
	if !fs.IsSet("case-time") {
		f.caseTime = 0
	}
}

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
	case f.versus.Target.Addr != "":
		return command.Usagef("--count instructions counts built-in servers: give side b as --versus-server PROGRAM or --versus-self, not --versus")
	case slices.Contains(f.transports, runner.TransportMemory):
		return command.Usagef("--count instructions counts the built-in server in a process of its own: use --transport tcp, not memory")
	}
	if err := callgrind.Available(); err != nil {
		if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
			return command.Usagef("--count instructions: %v; this is %s/%s", err, runtime.GOOS, runtime.GOARCH)
		}
		return command.Usagef("--count instructions: %v (Debian: apt-get install valgrind)", err)
	}
	return nil
}
