package command

import (
	"fmt"
	"io"
	"runtime/pprof"
)

// WholeProfile starts a CPU profile of this process for file (serve's
// and proxy's --profile). It is written beside file and put in its place
// when the command ends, so that a command that fails to start (a port
// in use) leaves an older file as it was; a file that cannot be written
// is a usage error, said at once. stop ends the profile: with keep, it
// puts it in place, saying on w where it went; without, it removes it.
// It is to run when the command ends, however it ends (Ctrl-C and
// SIGTERM end its context, not the process).
func WholeProfile(file string, w io.Writer) (stop func(keep bool) error, err error) {
	if file == "" {
		return func(bool) error { return nil }, nil
	}
	b, err := openBeside(file, "cpu.pprof", 0o600)
	if err != nil {
		return nil, Usagef("--profile %s: cannot be written: %v; give a file in a directory you can write", file, Cause(err))
	}
	if err := pprof.StartCPUProfile(b.f); err != nil {
		b.discard()
		return nil, fmt.Errorf("--profile %s: %w", file, err)
	}
	return func(keep bool) error {
		pprof.StopCPUProfile()
		if !keep {
			b.discard()
			return nil
		}
		if err := b.commit(); err != nil {
			return fmt.Errorf("writing the CPU profile %s: %v", file, Cause(err))
		}
		fmt.Fprintf(w, "CPU profile written to %s\n", file)
		return nil
	}, nil
}
