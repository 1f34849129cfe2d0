package cli

import (
	"fmt"
	"strings"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/runner"
)

// The flags of interleaved A/B runs and adaptive precision (tlsbench
// run): what side b is, and how precise a case must get.

// defineVersusFlags defines them on fs, into f.
func defineVersusFlags(fs *command.FlagSet, f *runFlags) {
	f.targetError = plan.DefaultTargetError
	shown := true // the default is shown in the help
	fs.Def("target-error", command.NewPercentFlag(&f.targetError, &shown))
	fs.DefString(&f.versus.Target.Addr, "versus", "")
	fs.DefInt(&f.versus.Target.ServerPID, "versus-pid", 0)
	fs.DefString(&f.versus.Target.Command, "versus-cmd", "")
	fs.DefString(&f.versus.Executable, "versus-server", "")
	fs.DefBool(&f.versus.Self, "versus-self", false)
	fs.Def("versus-set", &versusSetFlag{&f.versus.Settings})
}

// versusSetFlag collects NAME=VALUE settings of side b.
type versusSetFlag struct{ v *[]runner.VersusSetting }

// Elements are the settings as --versus-set takes them, one each.
func (f *versusSetFlag) Elements() []string {
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
func validateVersus(fs *command.FlagSet, f *runFlags) error {
	if fs.IsSet("target-error") && f.tp.mode != modeHandshake {
		return command.Usagef("--target-error applies to handshake cases; throughput cases measure --iterations transfers")
	}
	for _, name := range []string{"versus", "versus-server", "versus-cmd", "server-cmd"} {
		if fs.IsSet(name) && strings.TrimSpace(fs.Lookup(name).Value.String()) == "" {
			return command.Usagef("--%s: give %s", name, map[string]string{"versus": "side b's HOST:PORT", "versus-server": "side b's tlsbench PROGRAM",
				"versus-cmd": "the shell command that starts side b's server", "server-cmd": "the shell command that starts the server"}[name])
		}
	}
	if !f.interleaved() {
		return nil
	}
	switch {
	case f.tp.mode != modeHandshake:
		return command.Usagef("--versus, --versus-server and --versus-self interleave handshake cases; throughput cases are compared across runs with tlsbench compare")
	case f.baseline != "":
		return command.Usagef("--baseline compares with an earlier run, and an interleaved run compares its own two sides: give one of them")
	}
	return nil
}
