package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// wholeProfile starts a CPU profile of this process into file (serve's
// and proxy's --profile): a file that cannot be created is a usage
// error, said at once. stop ends the profile and closes the file, saying
// on w where it went; it is to run when the command ends, however it
// ends (Ctrl-C and SIGTERM end its context, not the process).
func wholeProfile(file string, w io.Writer) (stop func() error, err error) {
	if file == "" {
		return func() error { return nil }, nil
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, usagef("--profile %s: cannot be written: %v; give a file in a directory you can write", file, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--profile %s: %w", file, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("writing the CPU profile %s: %w", file, err)
		}
		fmt.Fprintf(w, "CPU profile written to %s\n", file)
		return nil
	}, nil
}
