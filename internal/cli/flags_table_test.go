package cli

import (
	"flag"
	"io"
	"slices"
	"testing"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/internal/cli/reportcmd"
	"github.com/tlsbench/tlsbench/internal/cli/servecmd"
	"github.com/tlsbench/tlsbench/plan"
)

// definedFlags are the flags each command of the table defines.
func definedFlags(t *testing.T) map[plan.Command]*command.FlagSet {
	t.Helper()
	run := command.NewFlagSet("run", io.Discard, nil)
	defineRunFlags(run)
	serve := command.NewFlagSet("serve", io.Discard, nil)
	servecmd.DefineServeFlags(serve)
	compare := command.NewFlagSet("compare", io.Discard, nil)
	reportcmd.DefineCompareFlags(compare)
	report := command.NewFlagSet("report", io.Discard, nil)
	reportcmd.DefineReportFlags(report)
	return map[plan.Command]*command.FlagSet{plan.Run: run, plan.Serve: serve, plan.Compare: compare, plan.Report: report}
}

// The table and the flags match one to one for run and serve (compare
// and report take the table's settings beside flags of their own), with
// the table's help and default.
func TestFlagsMatchTheTable(t *testing.T) {
	t.Parallel()
	for cmd, fs := range definedFlags(t) {
		fs.VisitAll(func(fl *flag.Flag) {
			s := plan.Lookup(cmd, fl.Name)
			switch {
			case s == nil && cmd != plan.Compare && cmd != plan.Report:
				t.Errorf("%s --%s has no entry in the table", fs.Cmd, fl.Name)
			case s == nil:
			case fl.Usage != command.HelpText(s):
				t.Errorf("%s --%s: usage %q, the table's %q", fs.Cmd, fl.Name, fl.Usage, command.HelpText(s))
			case fl.DefValue != s.DefaultOn(cmd) && !(s.DefaultOn(cmd) == "" && fl.DefValue == "false"):
				t.Errorf("%s --%s: default %q, the table says %q", fs.Cmd, fl.Name, fl.DefValue, s.DefaultOn(cmd))
			}
		})
		for _, s := range plan.For(cmd) {
			if fs.Lookup(s.Name) == nil {
				t.Errorf("%s: the table's %s is not a flag", fs.Cmd, s.Name)
			}
		}
	}
}

// Every fixed value of a setting is one its flag takes.
func TestValuesParse(t *testing.T) {
	t.Parallel()
	for cmd, fs := range definedFlags(t) {
		for _, s := range plan.For(cmd) {
			for _, v := range command.ValuesOf(s) {
				if err := fs.Lookup(s.Name).Value.Set(v); err != nil {
					t.Errorf("%s --%s %s, a value the table lists: %v", fs.Cmd, s.Name, v, err)
				}
			}
		}
	}
	if v := command.ValuesOf(plan.Lookup(plan.Run, "transport")); !slices.Contains(v, "quic") {
		t.Errorf("--transport's values %v lack quic", v)
	}
}
