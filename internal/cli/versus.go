package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tlsbench/tlsbench/runner"
)

// The flags of interleaved A/B runs and adaptive precision (tlsbench
// run): what side b is, and how precise a case must get.

const versusHelp = `
Interleaved A/B runs measure every handshake case on two servers in one
run, their iterations alternating a b, b a, a b, ... so that whatever
changes while the run goes on (other load, the CPU's clock) hits both
alike. Side a is the built-in server (or --target); side b is
--versus HOST:PORT (a second external server, with --target),
--versus-server PROGRAM (the built-in server of another tlsbench program,
e.g. one built with another Go), or --versus-self (the same server again:
an A/A run, whose differences are the noise of this machine).
--versus-set NAME=VALUE changes side b's built-in server (key-cache=off,
ticket-keys=FILE, session-capacity=N, session-ttl=D, handshake-timeout=D,
early-data-policy=reject: with --transport quic --early-data on, what the
round trip of rejected early data costs).
--versus-self beside --versus or --versus-server measures side a twice
(a and a2): their difference is the noise floor of the same run. After
the run, side b is compared with side a on the paired per-iteration
ratios: the geometric mean ratio with its 99.9% confidence interval, and
a Wilcoxon signed-rank test. A case is faster or slower only when the
change is significant and larger than the noise floor (the A/A difference
of the same run, or --min-effect); smaller significant changes are
"within noise".
`

// targetErrorHelp is the help of adaptive precision, in the group of
// how each case is measured.
const targetErrorHelp = `
--target-error PCT (default 2%) keeps each case measuring past --iterations
until the half-width of its 99.9% confidence interval is at most PCT of
the mean (of the b/a ratio in an interleaved run), within --case-time (per
side); every record says what ended it, and the report lists the cases
that did not reach the target. The default is off when --iterations is
given (then that many are measured), with --quick, or with --case-time 0.

`

// defineVersusFlags defines them on fs, into f.
func defineVersusFlags(fs *flagSet, f *runFlags) {
	f.targetError = 0.02
	shown := true // the default is shown in the help
	fs.def("target-error", &percentFlag{&f.targetError, &shown})
	fs.stringVar(&f.versus.Target.Addr, "versus", "")
	fs.intVar(&f.versus.Target.ServerPID, "versus-pid", 0)
	fs.stringVar(&f.versus.Executable, "versus-server", "")
	fs.boolVar(&f.versus.Self, "versus-self", false)
	fs.def("versus-set", &versusSetFlag{&f.versus.Settings})
}

func versusSettingNames() string {
	return strings.Join(slices.Sorted(maps.Keys(runner.VersusSettings)), ", ")
}

// versusSetFlag collects NAME=VALUE settings of side b.
type versusSetFlag struct{ v *[]runner.VersusSetting }

// elements are the settings as --versus-set takes them, one each.
func (f *versusSetFlag) elements() []string {
	var out []string
	for _, s := range *f.v {
		out = append(out, s.String())
	}
	return out
}

func (f *versusSetFlag) String() string {
	if f.v == nil {
		return ""
	}
	parts := make([]string, len(*f.v))
	for i, s := range *f.v {
		parts[i] = s.String()
	}
	return strings.Join(parts, " ")
}

func (f *versusSetFlag) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "" || value == "" {
		return fmt.Errorf("%q: want NAME=VALUE, e.g. key-cache=off", s)
	}
	*f.v = append(*f.v, runner.VersusSetting{Name: name, Value: value})
	return nil
}

// interleaved reports whether the run measures a side b.
func (f *runFlags) interleaved() bool {
	return f.versus.Target.Addr != "" || f.versus.Executable != "" || f.versus.Self
}

// validateVersus checks the flags of an interleaved run that the plan
// cannot: how they combine with the run's mode and output.
func validateVersus(fs *flagSet, f *runFlags) error {
	if fs.isSet("target-error") && f.tp.mode != modeHandshake {
		return usagef("--target-error applies to handshake cases; throughput cases measure --iterations transfers")
	}
	for _, name := range []string{"versus", "versus-server"} {
		if fs.isSet(name) && strings.TrimSpace(fs.Lookup(name).Value.String()) == "" {
			return usagef("--%s: give side b's %s", name, map[string]string{"versus": "HOST:PORT", "versus-server": "tlsbench PROGRAM"}[name])
		}
	}
	if !f.interleaved() {
		return nil
	}
	switch {
	case f.tp.mode != modeHandshake:
		return usagef("--versus, --versus-server and --versus-self interleave handshake cases; throughput cases are compared across runs with tlsbench compare")
	case f.baseline != "":
		return usagef("--baseline compares with an earlier run, and an interleaved run compares its own two sides: give one of them")
	case fs.isSet("versus") && f.target.Addr == "":
		return usagef("--versus measures a second external server beside --target: add --target HOST:PORT, or measure the built-in server against another program's with --versus-server PROGRAM")
	}
	return nil
}
