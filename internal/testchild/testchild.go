package testchild

import (
	"fmt"
	"os"

	"github.com/tlsbench/tlsbench/internal/childproc"
	"github.com/tlsbench/tlsbench/results"

	// Linked for their child mains, which they register with childproc.
	_ "github.com/tlsbench/tlsbench/proxy"
	_ "github.com/tlsbench/tlsbench/server"
)

const envVar = "TLSBENCH_TEST_CHILD"

// Env is the environment entry that makes a re-executed test binary act
// as tlsbench.
func Env() string { return envVar + "=1" }

// isChild reports whether this process was started with Env.
func isChild() bool { return os.Getenv(envVar) == "1" }

// RunIfChild runs the child server or proxy its arguments name ("serve
// --control-fd 3") and exits, when this process was started with Env;
// otherwise it returns at once. A child asked for anything else exits 2
// saying so, rather than run the tests again.
func RunIfChild() {
	if !isChild() {
		return
	}
	env := results.CurrentEnv()
	childproc.RunIfChild(env.TLSBenchVersion + " (" + env.GoVersion + ")")
	fmt.Fprintf(os.Stderr, "tlsbench: this test binary runs only the child server or proxy (serve or proxy with --%s), not %q\n", childproc.ControlFlag, os.Args[1:])
	os.Exit(2)
}

// RunMainIfChild runs main with the process arguments and exits with its
// status, when this process was started with Env: for the CLI's tests,
// whose children are the whole command.
func RunMainIfChild(main func(args []string) int) {
	if isChild() {
		os.Exit(main(os.Args[1:]))
	}
}
