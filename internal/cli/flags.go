package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// flagSet wraps flag.FlagSet to turn its errors into one-line usage
// errors that name the flag ("--tls") and point at the help.
type flagSet struct {
	*flag.FlagSet
	cmd   string
	usage func(io.Writer)
	out   io.Writer
}

func newFlagSet(cmd string, out io.Writer, usage func(io.Writer)) *flagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &flagSet{FlagSet: fs, cmd: cmd, usage: usage, out: out}
}

// parse parses args of a command that takes no positional arguments; it
// prints the help and returns errHelp for -h/--help.
func (f *flagSet) parse(args []string) error {
	if err := f.parseOnce(args); err != nil {
		return err
	}
	if f.NArg() > 0 {
		return usagef("unexpected argument %q (see 'tlsbench %s --help')", f.Arg(0), f.cmd)
	}
	return nil
}

// parseWithArgs parses flags that may come before, between or after the
// positional arguments ("report a.jsonl --format html", "probe HOST:PORT
// --format json", as people type them), which the flag package alone
// stops at, and returns the positional arguments. A "--" ends the flags.
func (f *flagSet) parseWithArgs(args []string) ([]string, error) {
	var pos []string
	for {
		if err := f.parseOnce(args); err != nil {
			return nil, err
		}
		rest := f.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseOnce runs the flag package over args, turning its errors into
// usage errors and -h into the help.
func (f *flagSet) parseOnce(args []string) error {
	err := f.FlagSet.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		f.usage(f.out)
		return errHelp
	}
	if err != nil {
		return usagef("%s (see 'tlsbench %s --help')", rewriteFlagError(err.Error()), f.cmd)
	}
	return nil
}

// isSet reports whether the flag was given on the command line.
func (f *flagSet) isSet(name string) bool {
	set := false
	f.Visit(func(fl *flag.Flag) {
		if fl.Name == name {
			set = true
		}
	})
	return set
}

// rewriteFlagError turns the flag package's messages into tlsbench's
// "--name: problem" form.
func rewriteFlagError(msg string) string {
	switch {
	case strings.HasPrefix(msg, "flag provided but not defined: "):
		name := strings.TrimLeft(strings.TrimPrefix(msg, "flag provided but not defined: "), "-")
		return fmt.Sprintf("unknown flag --%s", name)
	case strings.HasPrefix(msg, "flag needs an argument: "):
		name := strings.TrimLeft(strings.TrimPrefix(msg, "flag needs an argument: "), "-")
		return fmt.Sprintf("--%s needs a value", name)
	case strings.HasPrefix(msg, "invalid value "), strings.HasPrefix(msg, "invalid boolean value "):
		// invalid value "x" for flag -name: reason
		i := strings.Index(msg, " for flag -")
		j := strings.Index(msg, " for -")
		start, skip := i, len(" for flag -")
		if i < 0 {
			start, skip = j, len(" for -")
		}
		if start >= 0 {
			rest := msg[start+skip:]
			name, reason, _ := strings.Cut(rest, ": ")
			return fmt.Sprintf("--%s: %s", name, reason)
		}
	}
	return msg
}

// listFlag is a comma-separated list flag; each element is parsed with
// parse. Giving the flag again replaces the list.
type listFlag[T any] struct {
	vals  *[]T
	parse func(string) (T, error)
	show  func(T) string
}

func (l listFlag[T]) String() string {
	if l.vals == nil {
		return ""
	}
	parts := make([]string, len(*l.vals))
	for i, v := range *l.vals {
		if l.show != nil {
			parts[i] = l.show(v)
		} else {
			parts[i] = fmt.Sprint(v)
		}
	}
	return strings.Join(parts, ",")
}

func (l listFlag[T]) Set(s string) error {
	var out []T
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		v, err := l.parse(part)
		if err != nil {
			return err
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return errors.New("empty list")
	}
	*l.vals = out
	return nil
}

func parseOnOff(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "on", "true", "yes":
		return true, nil
	case "off", "false", "no":
		return false, nil
	}
	return false, fmt.Errorf("%q is not on or off", s)
}

func showOnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func parsePositiveInt(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a whole number of at least 1", s)
	}
	return n, nil
}

// hiddenFlags are internal flags left out of the help (the child server's
// control channel).
var hiddenFlags = map[string]bool{"control-fd": true}

// printFlags writes the flags' help like flag.PrintDefaults, with "--"
// names and without hidden flags.
func (f *flagSet) printFlags(w io.Writer) {
	f.VisitAll(func(fl *flag.Flag) {
		if hiddenFlags[fl.Name] {
			return
		}
		name, usage := flag.UnquoteUsage(fl)
		dash := "--"
		if len(fl.Name) == 1 {
			dash = "-" // -o, as the examples write it
		}
		line := "  " + dash + fl.Name
		if name != "" {
			line += " " + name
		}
		fmt.Fprintln(w, line)
		def := fl.DefValue
		if def != "" && def != "false" && def != "0" && def != "0s" {
			usage += fmt.Sprintf(" (default %s)", def)
		}
		fmt.Fprintf(w, "        %s\n", usage)
	})
}
