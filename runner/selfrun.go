package runner

import (
	"fmt"
	"os"
	"slices"

	"github.com/tlsbench/tlsbench/internal/childproc"
	"github.com/tlsbench/tlsbench/proxy"
	"github.com/tlsbench/tlsbench/results"
)

// RunChildIfAsked runs the built-in server or proxy and exits, when this
// process is the child that a run started by re-running this program;
// otherwise it returns at once. A program that runs cases against the
// built-in server or proxy, without Plan.Executable naming a tlsbench
// program to start them with, must call it first in main (see the
// package's library example). Without it, the run fails saying so.
func RunChildIfAsked() {
	env := results.CurrentEnv()
	childproc.RunIfSelfChild(env.TLSBenchVersion + " (" + env.GoVersion + ")")
}

// program is what a child runs: Executable, or else this program re-run,
// marked so that RunChildIfAsked dispatches it (self).
func (c childPlumbing) program(what string) (exe string, env []string, self bool, err error) {
	if c.Executable != "" {
		return c.Executable, c.Env, false, nil
	}
	if exe, err = os.Executable(); err != nil {
		return "", nil, false, fmt.Errorf("finding tlsbench to start %s: %w", what, err)
	}
	return exe, append(slices.Clip(c.Env), childproc.SelfEnv()), true, nil
}

// notDispatched explains a child that re-ran this program (self) and
// ended before it was ready without a service's word.
func notDispatched(err error, self bool, command string) error {
	if self {
		return childproc.ExplainUndispatched(err, command, undispatched)
	}
	return err
}

// undispatched is why a child started with command did not start when
// its program does not dispatch to it, and the two fixes; its errors
// name the built-in server or proxy it was to be.
func undispatched(command string) string {
	role := "server"
	if command == proxy.ChildCommand {
		role = "proxy"
	}
	return "this program re-ran itself as the " + role + " but does not dispatch to it; call runner.RunChildIfAsked() at the start of main, or set Plan.Executable to a tlsbench binary"
}
