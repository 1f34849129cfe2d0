package command

import (
	"errors"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
)

// GatesFlag is --fail-on-regression: gates of a metric each, given one
// or several a value ("5%", "server-cpu=5%,alloc=10%"), repeatable.
type GatesFlag struct {
	gates *[]plan.RegressionGate
}

// NewGatesFlag is the flag of the gates in gates.
func NewGatesFlag(gates *[]plan.RegressionGate) *GatesFlag { return &GatesFlag{gates: gates} }

func (g *GatesFlag) String() string { return strings.Join(g.Elements(), ",") }

// Elements are the gates as the flag takes them, one each.
func (g *GatesFlag) Elements() []string {
	if g.gates == nil {
		return nil
	}
	var out []string
	for _, gt := range *g.gates {
		pct := strconv.FormatFloat(gt.Threshold*100, 'f', -1, 64) + "%"
		if gt.Metric != results.MetricWall {
			pct = gt.Metric + "=" + pct
		}
		out = append(out, pct)
	}
	return out
}

func (g *GatesFlag) Set(s string) error {
	gates, err := plan.AddRegressionGates(*g.gates, s)
	var pe *plan.Error
	if errors.As(err, &pe) {
		// The flag package names the flag: the reason follows it.
		return &flagReason{pe}
	}
	if err != nil {
		return err
	}
	*g.gates = gates
	return nil
}

// flagReason is a setting's error as a flag's value gives it: the
// reason, which quotes the value, the flag named before it.
type flagReason struct{ pe *plan.Error }

func (e *flagReason) Error() string { return e.pe.Reason(flagName) }
func (e *flagReason) Unwrap() error { return e.pe }
