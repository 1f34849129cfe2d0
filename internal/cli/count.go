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
// callgrind runs the server and the client about 50 times slower (a full
// TLS 1.3 handshake takes about 7 ms of the server's on a 2-core
// machine), and the count, unlike the time, needs few handshakes to
// settle, so an iteration is 50 handshakes and a case 10 of them without
// a time cap or target error: seconds a side, warm-up included. The
// matrix's concurrency is 1 and 8: a wave of 64 or 128 needs iterations
// as long, and under callgrind, which runs one thread at a time, more
// connections at once add queueing, not parallel work (the counts per
// handshake at 1 and 8 differ by 0.2%).
const (
	countHandshakes = 50
	countIterations = 10
)

var countConcurrency = []int{1, 8}

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
	if !fs.IsSet("concurrency") {
		f.concurrency = countConcurrency
	}
}

// validateCount checks --count: its one value, what the counted
// processes cannot run with, and valgrind to count them with (and its
// gdb server, for an external server started by command).
func validateCount(f *runFlags) error {
	switch {
	case f.count == "":
		return nil
	case f.count != plan.CountInstructions:
		return command.Usagef("--count %q: the one thing counted is instructions (--count instructions)", f.count)
	case slices.Contains(f.transports, runner.TransportMemory):
		return command.Usagef("--count instructions counts the built-in server in a process of its own: use --transport tcp, not memory")
	case f.profile.Dir != "":
		// A CPU profile's clock signals reach the counted processes,
		// and a signal can abort callgrind in a Go program.
		return command.Usagef("--profile takes CPU profiles, whose signals would stop the counted processes under callgrind: profile in a run without --count instructions")
	}
	available := callgrind.Available
	if f.target.Command != "" || f.versus.Target.Command != "" {
		available = callgrind.TreeAvailable
	}
	if err := available(); err != nil {
		if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
			return command.Usagef("--count instructions: %v; this is %s/%s", err, runtime.GOOS, runtime.GOARCH)
		}
		return command.Usagef("--count instructions: %v (Debian: apt-get install valgrind)", err)
	}
	return nil
}

// countedRun runs args again, under callgrind (callgrind.RunCounted):
// its exit status is this run's, its errors printed by it.
func countedRun(args []string) error {
	status, err := callgrind.RunCounted(append([]string{"run"}, args...))
	if err != nil {
		return err
	}
	if status != 0 {
		return &command.StatusError{Status: status}
	}
	return nil
}
