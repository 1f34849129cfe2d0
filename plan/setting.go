package plan

import (
	"slices"
	"strings"
)

// Command is a set of tlsbench commands that take a setting.
type Command uint8

// The commands whose settings the table declares (Compare only for the
// comparison settings it shares with run, Report for the report's).
const (
	Run Command = 1 << iota
	Serve
	Compare
	Report
)

// CommandNamed is the command of a name, 0 for none.
func CommandNamed(name string) Command {
	return map[string]Command{"run": Run, "serve": Serve, "compare": Compare, "report": Report}[name]
}

// Mode is a set of the modes of tlsbench run.
type Mode uint8

// The modes of tlsbench run (--mode).
const (
	Handshake Mode = 1 << iota
	Throughput
	Both = Handshake | Throughput
)

// The names of the modes, as --mode takes them.
const (
	ModeHandshake  = "handshake"
	ModeThroughput = "throughput"
)

// End is a set of the ends of a connection that a setting configures.
type End uint8

// The ends a setting configures.
const (
	Client        End = 1 << iota // the load generator
	BuiltinServer                 // tlsbench's own server only
	Target                        // an external server only
	Proxy                         // the proxy between them
)

// Kind says what a setting takes and what giving it twice does.
type Kind uint8

// The kinds of settings.
const (
	Scalar   Kind = iota // one value; given twice, the last counts
	Bool                 // no value on the command line; true or false in a file
	List                 // comma-separated values; given twice, the last list replaces the first
	Repeated             // one value each time; given twice, both count
)

// Setting is one setting as the user declares it.
type Setting struct {
	Name string // the flag's name and the plan-file key
	// Fields are the library's fields it sets (of runner's plans, the
	// server's and proxy's options), as the library's errors name them:
	// the command writes such an error with the setting's flag.
	Fields      []string
	Commands    Command // the commands that take it
	Group       Group   // where the help lists it
	Kind        Kind
	Placeholder string // what it takes, as the help shows it; "" for a Bool
	// Help is its help text. {name} stands for a fact the command
	// fills in from the constants that enforce it (a limit, a list).
	Help string
	// Default is its default as the user would type it; Defaults
	// holds the commands whose default differs.
	Default  string
	Defaults map[Command]string
	Values   []string // its fixed values, for completion; nil for any
	Modes    Mode     // the modes of run it applies to
	Ends     End      // the ends it configures
	// OwnChecks: where it does not apply, its own validation says so,
	// with a reason of its own; the checks of mode and end leave it be.
	OwnChecks bool
	// WithIdentity: a Target setting that also applies to the built-in
	// server given its identity (how the clients verify it).
	WithIdentity bool
	// Axis, when set, makes the setting a dimension of the matrix:
	// everything its values do is declared there.
	Axis      *Axis
	Hidden    bool // an internal flag, left out of help and completion
	NotInFile bool // a flag about the plan file itself, not a key in one
}

// DefaultOn is the setting's default on command c.
func (s *Setting) DefaultOn(c Command) string {
	if d, ok := s.Defaults[c]; ok {
		return d
	}
	return s.Default
}

// Accumulates reports whether giving the setting twice keeps both.
func (s *Setting) Accumulates() bool { return s.Kind == Repeated }

// For lists the settings of command c in the table's order.
func For(c Command) []*Setting {
	var out []*Setting
	for i := range table {
		if table[i].Commands&c != 0 {
			out = append(out, &table[i])
		}
	}
	return out
}

// OfField is the setting that sets the library field named field (see
// Setting.Fields), nil when no setting does.
func OfField(field string) *Setting {
	for i := range table {
		if slices.Contains(table[i].Fields, field) {
			return &table[i]
		}
	}
	return nil
}

// Lookup is command c's setting of that name, nil when there is none.
func Lookup(c Command, name string) *Setting {
	for i := range table {
		if table[i].Commands&c != 0 && table[i].Name == name {
			return &table[i]
		}
	}
	return nil
}

// InGroup lists command c's settings of group g, in the table's order.
func InGroup(c Command, g Group) []*Setting {
	var out []*Setting
	for _, s := range For(c) {
		if s.Group == g {
			out = append(out, s)
		}
	}
	return out
}

// Names lists the names of command c's settings, sorted, without hidden ones.
func Names(c Command) []string {
	var out []string
	for _, s := range For(c) {
		if !s.Hidden {
			out = append(out, s.Name)
		}
	}
	slices.Sort(out)
	return out
}

// Facts lists the {name} facts that the help texts of command c use.
func Facts(c Command) []string {
	var out []string
	for _, s := range For(c) {
		rest := s.Help
		for {
			_, after, ok := strings.Cut(rest, "{")
			if !ok {
				break
			}
			name, tail, ok := strings.Cut(after, "}")
			if !ok {
				break
			}
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
			rest = tail
		}
	}
	return out
}
