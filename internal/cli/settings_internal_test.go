package cli

import (
	"flag"
	"io"
	"slices"
	"testing"

	"github.com/tlsbench/tlsbench/plan"
)

// definedFlags are the flags each command of the table defines.
func definedFlags(t *testing.T) map[plan.Command]*flagSet {
	t.Helper()
	run := newFlagSet("run", io.Discard, nil)
	defineRunFlags(run)
	serve := newFlagSet("serve", io.Discard, nil)
	defineServeFlags(serve)
	compare := newFlagSet("compare", io.Discard, nil)
	defineCompareFlags(compare)
	return map[plan.Command]*flagSet{plan.Run: run, plan.Serve: serve, plan.Compare: compare}
}

// The table and the flags match one to one for run and serve (compare
// takes the table's comparison settings beside flags of its own), with
// the table's help and default.
func TestFlagsMatchTheTable(t *testing.T) {
	t.Parallel()
	for cmd, fs := range definedFlags(t) {
		fs.VisitAll(func(fl *flag.Flag) {
			s := plan.Lookup(cmd, fl.Name)
			switch {
			case s == nil && cmd != plan.Compare:
				t.Errorf("%s --%s has no entry in the table", fs.cmd, fl.Name)
			case s == nil:
			case fl.Usage != helpText(s):
				t.Errorf("%s --%s: usage %q, the table's %q", fs.cmd, fl.Name, fl.Usage, helpText(s))
			case fl.DefValue != s.DefaultOn(cmd) && !(s.DefaultOn(cmd) == "" && fl.DefValue == "false"):
				t.Errorf("%s --%s: default %q, the table says %q", fs.cmd, fl.Name, fl.DefValue, s.DefaultOn(cmd))
			}
		})
		for _, s := range plan.For(cmd) {
			if fs.Lookup(s.Name) == nil {
				t.Errorf("%s: the table's %s is not a flag", fs.cmd, s.Name)
			}
		}
	}
}

// Every fixed value of a setting is one its flag takes, and every
// setting whose values are known to the cli is one the table has.
func TestValuesParse(t *testing.T) {
	t.Parallel()
	for name := range enumValues {
		if plan.Lookup(plan.Run, name) == nil && plan.Lookup(plan.Serve, name) == nil {
			t.Errorf("values of %s, which the table does not have", name)
		}
	}
	for cmd, fs := range definedFlags(t) {
		for _, s := range plan.For(cmd) {
			for _, v := range valuesOf(s) {
				if err := fs.Lookup(s.Name).Value.Set(v); err != nil {
					t.Errorf("%s --%s %s, a value the table lists: %v", fs.cmd, s.Name, v, err)
				}
			}
		}
	}
	if v := valuesOf(plan.Lookup(plan.Run, "transport")); !slices.Contains(v, "quic") {
		t.Errorf("--transport's values %v lack quic", v)
	}
}

// A flag defined without an entry in the table is refused at once.
func TestUndeclaredFlagPanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("a flag without an entry in the table was defined")
		}
	}()
	var n int
	newFlagSet("run", io.Discard, nil).intVar(&n, "no-such-setting", 0)
}
