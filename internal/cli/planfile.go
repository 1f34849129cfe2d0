package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/plan"
)

// A plan file holds the settings of a run as "key: value" lines, the
// keys named as the flags, the values as on the command line (see
// plan.Parse for what is read). Flags given on the command line win.

// maxPlanFile bounds a plan file: its settings take a few KiB.
const maxPlanFile = 1 << 20

// planFileFlags are --config and --print-config.
type planFileFlags struct {
	config string
	print  bool
}

func definePlanFileFlags(fs *command.FlagSet) *planFileFlags {
	p := &planFileFlags{}
	fs.DefString(&p.config, "config", "")
	fs.DefBool(&p.print, "print-config", false)
	return p
}

// applyPlanFile sets the flags of the plan file that the command line
// did not give.
func applyPlanFile(fs *command.FlagSet, path string) error {
	data, err := readPlanFile(path)
	if err != nil {
		return err
	}
	entries, err := plan.Parse(data)
	var se *plan.SyntaxError
	if errors.As(err, &se) {
		return command.Usagef("%s:%d: %s", path, se.Line, se.Msg)
	}
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	for _, e := range entries {
		s := plan.Lookup(plan.CommandNamed(fs.Cmd), e.Key)
		if s == nil || s.NotInFile || s.Hidden {
			return unknownKey(fs, path, e)
		}
		if given[e.Key] {
			continue
		}
		if err := setFromFile(fs, s, e); err != nil {
			return command.Usagef("%s:%d: %s: %s", path, e.Line, e.Key, err)
		}
	}
	return nil
}

func readPlanFile(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, command.Usagef("--config %s: no such file; give a plan file's path (tlsbench run --print-config writes one)", path)
	}
	if err != nil {
		return nil, command.Usagef("--config: %v", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxPlanFile+1))
	if err != nil {
		return nil, command.Usagef("--config %s: %v", path, err)
	}
	if len(data) > maxPlanFile {
		return nil, command.Usagef("--config %s: larger than %d KiB: a plan file holds settings, not data", path, maxPlanFile>>10)
	}
	return data, nil
}

// unknownKey refuses a key that is no setting, with the nearest one.
func unknownKey(fs *command.FlagSet, path string, e plan.Entry) error {
	msg := fmt.Sprintf("%s:%d: %s is not a setting of tlsbench %s", path, e.Line, e.Key, fs.Cmd)
	best, dist := "", 3
	for _, name := range plan.Names(plan.CommandNamed(fs.Cmd)) {
		if s := plan.Lookup(plan.CommandNamed(fs.Cmd), name); s.NotInFile {
			continue
		}
		if d := command.EditDistance(e.Key, name); d < dist {
			best, dist = name, d
		}
	}
	if best != "" {
		msg += "; did you mean " + best + "?"
	}
	return command.Usagef("%s", msg)
}

// setFromFile gives the flag an entry's values as the command line would:
// a list joined by commas, each value of a repeated setting once.
func setFromFile(fs *command.FlagSet, s *plan.Setting, e plan.Entry) error {
	values := e.Values
	switch {
	case s.Kind == plan.Repeated:
	case s.Kind == plan.List:
		values = []string{strings.Join(values, ",")}
	case e.IsList:
		return fmt.Errorf("takes one value, not a list")
	}
	for _, v := range values {
		if err := fs.Set(s.Name, v); err != nil {
			return err
		}
	}
	return nil
}

// printPlanFile writes the settings of the run as a plan file: those
// given (on the command line or in a plan file), then the others at
// their defaults, commented out. --config of it runs the same.
func printPlanFile(w io.Writer, fs *command.FlagSet) {
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	fmt.Fprintf(w, "# tlsbench %s plan: the settings given, then the others at their defaults\n", fs.Cmd)
	var rest []string
	for _, s := range plan.For(plan.CommandNamed(fs.Cmd)) {
		if s.NotInFile || s.Hidden {
			continue
		}
		line := planLine(s, fs.Lookup(s.Name).Value)
		if given[s.Name] {
			fmt.Fprintln(w, line)
		} else if s.DefaultOn(plan.CommandNamed(fs.Cmd)) != "" || s.Kind == plan.Bool {
			rest = append(rest, "# "+line)
		} else {
			rest = append(rest, "# "+s.Name+":")
		}
	}
	for _, l := range rest {
		fmt.Fprintln(w, l)
	}
}

// elementsFlag is a repeated flag whose values are written one by one.
type elementsFlag interface{ Elements() []string }

// planLine is a setting's line with the flag's value.
func planLine(s *plan.Setting, v flag.Value) string {
	switch s.Kind {
	case plan.Repeated:
		return plan.Line(s.Name, v.(elementsFlag).Elements(), true)
	case plan.List:
		return plan.Line(s.Name, strings.Split(v.String(), ","), true)
	}
	return plan.Line(s.Name, []string{v.String()}, false)
}
