package runner_test

import (
	"context"
	"crypto/tls"
	"fmt"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// A program of its own runs handshake cases against the built-in server,
// which runs in a child process: this program re-run. Its main must
// therefore hand that child to the server before anything else:
//
//	func main() {
//		runner.RunChildIfAsked()
//		// ... the program's own work, which may call runner.Run
//	}
//
// (Or Plan.Executable names a tlsbench program to run the server.) Here
// the test binary's TestMain is that main.
func Example_library() {
	p := runner.Plan{
		Versions:    []uint16{tls.VersionTLS13},
		Resume:      []bool{false, true},
		Concurrency: []int{1},
		Handshakes:  16,
		Iterations:  1,
		Warmup:      1,
	}
	err := runner.Run(context.Background(), p, func(rec *results.Record) error {
		fmt.Printf("%s: resumed %.0f%% (the server says %d of %d)\n",
			rec.Name, 100*rec.ResumptionRate, *rec.ServerResumed, rec.Handshakes)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// handshake/tls1.3/full/c1: resumed 0% (the server says 0 of 16)
	// handshake/tls1.3/resume/c1: resumed 100% (the server says 16 of 16)
}
