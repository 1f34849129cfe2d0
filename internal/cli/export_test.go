package cli

import (
	"fmt"
	"os"
	"time"
)

// PlanOnly does for a run what tlsbench run does before it measures:
// parse its flags (and plan file), validate them, plan every case, load
// the identities and baseline it names and check its start time, then
// exits without measuring. The documents' commands whose servers or time
// a test cannot give are checked this way (the program itself has no
// such mode: --print-config writes the settings without planning).
func PlanOnly(args []string) int {
	err := planOnly(args)
	if msg := Message(err); msg != "" {
		fmt.Fprintln(os.Stderr, "tlsbench: "+msg)
	}
	return ExitCode(err)
}

func planOnly(args []string) error {
	if len(args) == 0 || args[0] != "run" {
		return fmt.Errorf("only run is planned without measuring, not %q", args)
	}
	fs, f, err := parseRun(args[1:], os.Stdout)
	if err != nil {
		return err
	}
	if err := validateRun(fs, f); err != nil {
		return err
	}
	job, err := planRun(fs, f)
	if err != nil {
		return err
	}
	if err := checkStartAt(job, time.Now(), os.Stderr); err != nil {
		return err
	}
	cases := len(job.plan.Cases())
	if job.tplan != nil {
		cases = len(job.tplan.Cases())
	}
	if cases == 0 {
		return fmt.Errorf("the plan has no cases")
	}
	fmt.Fprintf(os.Stderr, "planned %d cases\n", cases)
	return nil
}
