package plan_test

import (
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/plan"
)

// The table's own rules: one setting of a name per command, in a known
// group, taking what its placeholder says, never Go's "value".
func TestTableIsConsistent(t *testing.T) {
	t.Parallel()
	groups := map[plan.Group]bool{}
	for _, g := range plan.Groups {
		groups[g.Name] = true
	}
	for _, c := range []plan.Command{plan.Run, plan.Serve, plan.Compare, plan.Report} {
		seen := map[string]bool{}
		for _, s := range plan.For(c) {
			if seen[s.Name] {
				t.Errorf("%s is declared twice for one command", s.Name)
			}
			seen[s.Name] = true
			if plan.Lookup(c, s.Name) != s {
				t.Errorf("Lookup(%s) is not its entry", s.Name)
			}
			checkSetting(t, s, groups)
		}
	}
}

func checkSetting(t *testing.T, s *plan.Setting, groups map[plan.Group]bool) {
	t.Helper()
	switch {
	case !groups[s.Group]:
		t.Errorf("%s: group %q is not a help group", s.Name, s.Group)
	case (s.Kind == plan.Bool) != (s.Placeholder == ""):
		t.Errorf("%s: a switch has no placeholder, and every other setting one (kind %d, %q)", s.Name, s.Kind, s.Placeholder)
	case s.Kind == plan.List && s.Placeholder != "LIST":
		t.Errorf("%s: a list's placeholder is LIST, not %q", s.Name, s.Placeholder)
	case strings.Contains(s.Placeholder, "value") || s.Placeholder == "string" || s.Placeholder == "int":
		t.Errorf("%s: placeholder %q says nothing of what it takes", s.Name, s.Placeholder)
	case s.Help == "" || strings.Contains(s.Help, "`"):
		t.Errorf("%s: help %q is empty or still marks its placeholder", s.Name, s.Help)
	case s.Commands&plan.Run != 0 && (s.Modes == 0 || s.Ends == 0):
		t.Errorf("%s: a setting of run says its modes and ends", s.Name)
	}
}

// Each help group of run fits on one screen: at most 20 settings.
func TestGroupsAreSmall(t *testing.T) {
	t.Parallel()
	total := 0
	for _, g := range plan.Groups {
		n := len(plan.InGroup(plan.Run, g.Name))
		if n == 0 || n > 20 {
			t.Errorf("group %s has %d settings, want 1 to 20", g.Name, n)
		}
		total += n
	}
	if want := len(plan.For(plan.Run)); total != want {
		t.Errorf("the groups hold %d of run's %d settings", total, want)
	}
}

func TestGroupNamed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		word string
		want plan.Group
		ok   bool
	}{
		{"matrix", plan.GroupMatrix, true}, {"open", plan.GroupOpenLoop, true}, {"s", "", false},
		{"sharding", plan.GroupSharding, true}, {"nope", "", false}, {"", "", false},
	} {
		got, ok := plan.GroupNamed(tc.word)
		if got != tc.want || ok != tc.ok {
			t.Errorf("GroupNamed(%q) = %q, %v, want %q, %v", tc.word, got, ok, tc.want, tc.ok)
		}
	}
}

// Only --identity, --versus-set and --fail-on-regression add up when
// given twice: the lists replace, as the help says.
func TestAccumulating(t *testing.T) {
	t.Parallel()
	var got []string
	for _, s := range plan.For(plan.Run) {
		if s.Accumulates() {
			got = append(got, s.Name)
		}
	}
	if strings.Join(got, " ") != "identity versus-set fail-on-regression" {
		t.Errorf("settings that accumulate: %v, want identity versus-set fail-on-regression", got)
	}
}

// TestFieldsNameOneSetting: a library field is set by one setting (its
// entries for several commands share its name), so that an error naming
// the field names one flag.
func TestFieldsNameOneSetting(t *testing.T) {
	t.Parallel()
	owner := map[string]string{}
	for _, c := range []plan.Command{plan.Run, plan.Serve, plan.Compare, plan.Report} {
		for _, s := range plan.For(c) {
			for _, f := range s.Fields {
				if o, ok := owner[f]; ok && o != s.Name {
					t.Errorf("field %s is set by --%s and --%s", f, o, s.Name)
				}
				owner[f] = s.Name
				if got := plan.OfField(f); got == nil || got.Name != s.Name {
					t.Errorf("OfField(%q) = %v, want --%s", f, got, s.Name)
				}
			}
		}
	}
	if plan.OfField("NoSuchField") != nil {
		t.Error("a field no setting sets has a setting")
	}
}
