package callgrind

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// countedRunEnv, in the environment of a counted run, is the number of
// the file descriptor it watches for the request to stop.
const countedRunEnv = "TLSBENCH_COUNTED_RUN_STOP_FD"

// restoreEnv, in the environment of a counted run, lists what its
// launcher set for callgrind (countedEnv) as it was before: "+KEY=VALUE"
// or "-KEY" (not set), a line each.
const restoreEnv = "TLSBENCH_COUNTED_RUN_RESTORE"

// stopFD is the counted run's pipe from its launcher (0: not a counted
// run), taken from the environment at start and removed from it: the
// run's own children (its servers) are not counted runs, and their fd 3
// is another's. The variables set for callgrind are put back as the
// user gave them, for the children (an uncounted proxy, a server started
// by command) to run as they would have: the runtime read its own
// settings at start (GOMAXPROCS, GOGC, GOMEMLIMIT, and GODEBUG's
// asyncpreemptoff, which a later change of GODEBUG does not move).
var stopFD = func() int {
	fd, err := strconv.Atoi(takeEnv(countedRunEnv))
	restore := takeEnv(restoreEnv)
	if err != nil || fd < 3 {
		return 0
	}
	for _, kv := range strings.Split(restore, "\n") {
		if k, ok := strings.CutPrefix(kv, "-"); ok {
			os.Unsetenv(k)
		} else if k, v, ok := strings.Cut(strings.TrimPrefix(kv, "+"), "="); ok && strings.HasPrefix(kv, "+") {
			os.Setenv(k, v)
		}
	}
	return fd
}()

// InCountedRun reports whether this process is a counted run: this
// program re-run under callgrind by RunCounted.
func InCountedRun() bool { return stopFD > 0 }

// RunCounted runs this program again with args, under callgrind (see
// Command), as the counted run, and returns its exit status once it has
// ended: the run counts its own instructions as its servers count
// theirs, with Counter. Its output is this process's; valgrind's own
// messages go to a file, quoted in the error when valgrind fails.
//
// A signal delivered to a Go program under callgrind can abort callgrind
// (it takes the handler's entry, on Go's signal stack, for a return
// past its bottom), so the counted run receives none: it runs in a
// process group of its own, out of the terminal's reach (Ctrl-C, a
// window resized), and, as every counted process, keeps its children's
// ends and broken connections from signalling it (quietSignals). The first SIGINT or SIGTERM
// here asks it to stop, as a Ctrl-C would, by closing a pipe it watches
// (see StopContext); a second kills it.
func RunCounted(args []string) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("finding tlsbench to count its run: %w", err)
	}
	dir, err := os.MkdirTemp("", "tlsbench-callgrind-run-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	path, argv, env, err := Command(dir, exe, args)
	if err != nil {
		return 0, err
	}
	logFile := filepath.Join(dir, "valgrind.log")
	argv = append([]string{"--log-file=" + logFile}, argv...)
	stopRead, stopWrite, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer stopWrite.Close()
	cmd := exec.Command(path, argv...)
	var restore []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if v, ok := os.LookupEnv(k); ok {
			restore = append(restore, "+"+k+"="+v)
		} else if k != outEnv {
			restore = append(restore, "-"+k)
		}
	}
	cmd.Env = append(append(os.Environ(), env...), countedRunEnv+"=3", restoreEnv+"="+strings.Join(restore, "\n"))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{stopRead} // fd 3
	ownGroup(cmd)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	err = cmd.Start()
	stopRead.Close()
	if err != nil {
		return 0, fmt.Errorf("starting the counted run under valgrind: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for asked := false; ; {
		select {
		case <-sigs:
			if !asked {
				stopWrite.Close()
				asked = true
				continue
			}
			killGroup(cmd)
		case err := <-done:
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				return 0, err
			}
			st := cmd.ProcessState
			if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return 128 + int(ws.Signal()), fmt.Errorf("the counted run was killed by %v%s", ws.Signal(), valgrindSaid(logFile))
			}
			if st.ExitCode() != 0 {
				if said := valgrindSaid(logFile); said != "" {
					return st.ExitCode(), fmt.Errorf("valgrind failed in the counted run (exit status %d)%s", st.ExitCode(), said)
				}
			}
			return st.ExitCode(), nil
		}
	}
}

// valgrindSaid is "; valgrind: LINE" with the line of valgrind's log
// that tells why it stopped (an assertion, a fatal signal), or "".
func valgrindSaid(logFile string) string {
	b, err := os.ReadFile(logFile)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		// Lines are "==PID== text".
		if i := strings.Index(line, "== "); i >= 0 {
			line = line[i+3:]
		}
		for _, mark := range []string{"Assertion", "impossible", "Process terminating", "Fatal error"} {
			if strings.Contains(line, mark) {
				return "; valgrind: " + strings.TrimSpace(line)
			}
		}
	}
	return ""
}

// StopContext is ctx, ended when the process that started this counted
// run asks it to stop (its user interrupted it) or is gone; ctx itself
// outside a counted run.
func StopContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if stopFD == 0 {
		return ctx, cancel
	}
	stop := os.NewFile(uintptr(stopFD), "stop")
	go func() {
		// Nothing is written: the end of the pipe is the request.
		var b [1]byte
		for {
			if _, err := stop.Read(b[:]); err != nil {
				break
			}
		}
		cancel()
	}()
	return ctx, cancel
}
