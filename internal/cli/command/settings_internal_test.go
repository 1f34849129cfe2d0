package command

import (
	"io"
	"testing"

	"github.com/tlsbench/tlsbench/plan"
)

// Every setting whose values are known here is one the table has.
func TestEnumValuesAreSettings(t *testing.T) {
	t.Parallel()
	for name := range enumValues {
		if plan.Lookup(plan.Run, name) == nil && plan.Lookup(plan.Serve, name) == nil {
			t.Errorf("values of %s, which the table does not have", name)
		}
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
	NewFlagSet("run", io.Discard, nil).DefInt(&n, "no-such-setting", 0)
}
