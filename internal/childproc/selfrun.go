package childproc

import (
	"errors"
	"fmt"
	"os"
)

// A parent that has no tlsbench program to start its child with re-runs
// its own program, marked by selfVar: that program's main must dispatch
// to the service (RunIfSelfChild) before it does anything else. One that
// does not runs its own main again instead, whose run would re-run it
// once more, each generation waiting for the next.
const selfVar = "TLSBENCH_SELF_CHILD"

// SelfEnv is the environment entry that marks a child its parent started
// by re-running its own program.
func SelfEnv() string { return selfVar + "=1" }

// UndispatchedStatus is the exit status of a child started with SelfEnv
// that went on to run its own main (see RefuseUndispatched).
const UndispatchedStatus = 3

// RunIfSelfChild is RunIfChild in a process started with SelfEnv only:
// a program's own command line that happens to look like a child's is
// left to the program.
func RunIfSelfChild(build string) {
	if os.Getenv(selfVar) == "1" {
		RunIfChild(build)
	}
}

// RefuseUndispatched ends this process with UndispatchedStatus, when it
// is a child started with SelfEnv that did not dispatch to its service
// and now starts work of its own; explain, given the command word it was
// started with ("serve"), is its one line on stderr, which its parent
// reports as the reason the child did not start. Otherwise it returns at
// once.
func RefuseUndispatched(explain func(command string) string) {
	if os.Getenv(selfVar) != "1" {
		return
	}
	command, _, ok := ChildArgs(os.Args[1:])
	if !ok {
		return
	}
	fmt.Fprintln(os.Stderr, servicePrefix+explain(command))
	os.Exit(UndispatchedStatus)
}

// ExplainUndispatched is Start's err for a child started with SelfEnv
// and command, or explain(command) with the child's last line on stderr
// when it ended before it was ready without a service's word: most
// likely its program never dispatched to it.
func ExplainUndispatched(err error, command string, explain func(command string) string) error {
	early, ok := errors.AsType[*EarlyExitError](err)
	if !ok || early.Spoke() {
		return err
	}
	msg := explain(command)
	if early.LastLine != "" {
		msg += "; its last line on stderr: " + early.LastLine
	}
	return errors.New(msg)
}
