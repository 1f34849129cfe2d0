package cli

import (
	"bufio"
	"fmt"
	"io"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli/command"
)

// dryRun lists the cases of a planned run and the time the plan gives
// them, without starting a server or dialling anything: what a user
// checks before a long run, or before pointing it at a server.
func (job *runJob) dryRun(stdout io.Writer) error {
	cases, budgets := job.plan.Cases(), handshakeBudgets(&job.plan)
	if job.tplan != nil {
		cases, budgets = job.tplan.Cases(), throughputBudgets(job.tplan)
	}
	w := bufio.NewWriter(stdout)
	var runnable, counted int
	var planned time.Duration
	for i, c := range cases {
		if c.NotRunnable != "" {
			fmt.Fprintf(w, "%s  %s\n", command.Printable(c.Name), c.NotRunnable) // the reason says "not runnable"
			continue
		}
		runnable++
		b := budgets[i]
		planned += b.length(0)
		if b.atMost == 0 && b.measured > 0 {
			counted++ // its iterations' length only a run shows
			fmt.Fprintf(w, "%s\n", command.Printable(c.Name))
			continue
		}
		fmt.Fprintf(w, "%s  about %s\n", command.Printable(c.Name), shortDuration(b.length(0)))
	}
	aside := ", the servers' start aside"
	if job.tplan == nil && job.plan.Target.Addr != "" && job.plan.Versus.Executable == "" && !job.plan.Versus.Self {
		aside = "" // nothing is started
	}
	fmt.Fprintf(w, "%s\n", dryRunSummary(len(cases), runnable, counted, planned, aside))
	return w.Flush()
}

// dryRunSummary is the last line of a dry run.
func dryRunSummary(all, runnable, counted int, planned time.Duration, aside string) string {
	line := fmt.Sprintf("%d cases", all)
	if runnable < all {
		line += fmt.Sprintf(" (%d not runnable)", all-runnable)
	}
	switch {
	case runnable == 0:
		return line + ": nothing to measure"
	case counted == runnable:
		return line + ": each measures a number of iterations, whose length only a run shows (its progress line tells the time left)"
	case counted > 0:
		return line + fmt.Sprintf(": planned at about %s, and %d measure a number of iterations, whose length only a run shows", shortDuration(planned), counted)
	}
	return line + fmt.Sprintf(": planned at about %s%s", shortDuration(planned), aside)
}
