package cli

import (
	"slices"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/plan"
)

// axisFlag is the flag of a table axis (plan.Setting's Axis): a
// comma-separated list of its values, stored by the axis's param in the
// run's plan values. Giving it again replaces the list.
type axisFlag struct {
	s    *plan.Setting
	vals plan.Values
}

func (a axisFlag) String() string {
	if a.s == nil || a.vals == nil {
		return ""
	}
	return a.s.AxisLabels(a.vals[a.s.Axis.Param])
}

func (a axisFlag) Set(text string) error {
	vals, err := a.s.ParseAxis(text)
	if err != nil {
		return err
	}
	a.vals[a.s.Axis.Param] = vals
	return nil
}

// IsOnOff says the axis takes off and on: its wrong values are answered
// with what it wants.
func (a axisFlag) IsOnOff() bool { return slices.Equal(a.s.Values, []string{plan.Off, plan.On}) }

// defineAxisFlags defines the flag of every axis of the settings table;
// their values are f.axes, which the plan takes whole.
func defineAxisFlags(fs *command.FlagSet, f *runFlags) {
	f.axes = plan.Values{}
	for _, s := range plan.For(plan.Run) {
		if s.Axis != nil {
			fs.Def(s.Name, axisFlag{s: s, vals: f.axes})
		}
	}
}
