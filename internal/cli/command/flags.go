package command

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/client"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/runner"
)

// FlagSet wraps flag.FlagSet to turn its errors into one-line usage
// errors that name the flag ("--tls") and point at the help.
type FlagSet struct {
	*flag.FlagSet
	Cmd  string
	Help func(io.Writer)
	out  io.Writer
}

func NewFlagSet(cmd string, out io.Writer, usage func(io.Writer)) *FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &FlagSet{FlagSet: fs, Cmd: cmd, Help: usage, out: out}
}

// NewUsageFlagSet is the flag set of a command whose help is its usage
// text followed by its flags, as most commands' is.
func NewUsageFlagSet(cmd, usage string, out io.Writer) *FlagSet {
	fs := NewFlagSet(cmd, out, nil)
	fs.Help = func(w io.Writer) {
		io.WriteString(w, usage)
		fs.PrintFlags(w)
	}
	return fs
}

// Parse parses args of a command that takes no positional arguments; it
// prints the help and returns ErrHelp for -h/--help.
func (f *FlagSet) Parse(args []string) error {
	if err := f.ParseOnce(args); err != nil {
		return err
	}
	if f.NArg() > 0 {
		return Usagef("unexpected argument %q (see 'tlsbench %s --help')", f.Arg(0), f.Cmd)
	}
	return nil
}

// ParseWithArgs parses flags that may come before, between or after the
// positional arguments ("report a.jsonl --format html", "probe HOST:PORT
// --format json", as people type them), which the flag package alone
// stops at, and returns the positional arguments. A "--" ends the flags.
func (f *FlagSet) ParseWithArgs(args []string) ([]string, error) {
	var pos []string
	for {
		if err := f.ParseOnce(args); err != nil {
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

// ParseOnce runs the flag package over args, turning its errors into
// usage errors and -h into the help.
func (f *FlagSet) ParseOnce(args []string) error {
	err := f.FlagSet.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		f.Help(f.out)
		return ErrHelp
	}
	if err != nil {
		return Usagef("%s (see 'tlsbench %s --help')", f.rewriteFlagError(err.Error(), args), f.Cmd)
	}
	return nil
}

// IsSet reports whether the flag was given on the command line.
func (f *FlagSet) IsSet(name string) bool {
	set := false
	f.Visit(func(fl *flag.Flag) {
		if fl.Name == name {
			set = true
		}
	})
	return set
}

// rewriteFlagError turns the flag package's messages into tlsbench's
// "--name: problem" form. An unknown flag is named as it was typed (in
// args), with the flag that was probably meant.
func (f *FlagSet) rewriteFlagError(msg string, args []string) string {
	switch {
	case strings.HasPrefix(msg, "flag provided but not defined: "):
		name := strings.TrimLeft(strings.TrimPrefix(msg, "flag provided but not defined: "), "-")
		msg := fmt.Sprintf("unknown flag %s", typedFlag(name, args))
		if s := f.suggest(name); s != "" {
			msg += fmt.Sprintf("; did you mean --%s?", s)
		}
		return msg
	case strings.HasPrefix(msg, "flag needs an argument: "):
		name := strings.TrimLeft(strings.TrimPrefix(msg, "flag needs an argument: "), "-")
		return fmt.Sprintf("%s needs a value", dashed(name))
	case strings.HasPrefix(msg, "invalid value "), strings.HasPrefix(msg, "invalid boolean value "):
		if s, ok := f.invalidValue(msg); ok {
			return s
		}
	}
	return msg
}

// invalidValue rewrites the flag package's `invalid value "x" for flag
// -name: reason`. Its own reasons ("parse error", "value out of range")
// say nothing of what the flag takes: those become what the flag's type
// wants ("--handshakes abc: want a whole number"); the reasons of
// tlsbench's own flag types already say it.
func (f *FlagSet) invalidValue(msg string) (string, bool) {
	_, quoted, _ := strings.Cut(msg, "value ")
	q, err := strconv.QuotedPrefix(quoted)
	if err != nil {
		return "", false
	}
	value, _ := strconv.Unquote(q)
	rest := strings.TrimPrefix(strings.TrimPrefix(quoted[len(q):], " for flag -"), " for -")
	name, reason, _ := strings.Cut(rest, ": ")
	fl := f.Lookup(name)
	if fl == nil {
		return "", false
	}
	if want := wantOf(fl.Value); want != "" && (isFlagPackageReason(reason) || isOnOffList(fl.Value)) {
		return fmt.Sprintf("%s %s: %s", dashed(name), ShownValue(value), want), true
	}
	return fmt.Sprintf("%s: %s", dashed(name), reason), true
}

// isFlagPackageReason tells the flag package's own reasons, which name no
// expected form, from those of tlsbench's flag types.
func isFlagPackageReason(reason string) bool {
	return reason == "parse error" || reason == "value out of range" || strings.HasPrefix(reason, "strconv.") ||
		strings.HasPrefix(reason, "time: ")
}

func isOnOffList(v flag.Value) bool {
	if a, ok := v.(interface{ IsOnOff() bool }); ok {
		return a.IsOnOff() // the flag of a table axis
	}
	_, ok := v.(ListFlag[bool])
	return ok
}

// wantOf says what a flag of v's type takes, "" when unknown.
func wantOf(v flag.Value) string {
	if isOnOffList(v) {
		return "want off, on or off,on"
	}
	g, ok := v.(flag.Getter)
	if !ok {
		return ""
	}
	switch g.Get().(type) {
	case int, int64, uint, uint64:
		return "want a whole number"
	case float64:
		return "want a number, e.g. 0.5"
	case time.Duration:
		return "want a duration with a unit, e.g. 10s"
	case bool:
		return "want true or false, or the flag alone for true"
	}
	return ""
}

// ShownValue writes a flag's value in an error: as typed, quoted when
// it would not read as one word.
func ShownValue(v string) string { return plan.Shown(v) }

// dashed writes a defined flag's name as the help does: -o, --out.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// typedFlag returns the flag name as the user typed it in args ("-o",
// "--nope"), or --name when it cannot be found.
func typedFlag(name string, args []string) string {
	for _, a := range args {
		if a == "--" {
			break
		}
		a, _, _ = strings.Cut(a, "=")
		if strings.HasPrefix(a, "-") && strings.TrimLeft(a, "-") == name {
			return a
		}
	}
	return "--" + name
}

// suggest returns the defined flag that the unknown flag name most likely
// meant: the only one it abbreviates (o for out), or the only one at edit
// distance 1 or 2 (concurency for concurrency); "" when unsure.
func (f *FlagSet) suggest(name string) string {
	var prefixed, near []string
	f.VisitAll(func(fl *flag.Flag) {
		if hiddenFlags[fl.Name] {
			return
		}
		if strings.HasPrefix(fl.Name, name) {
			prefixed = append(prefixed, fl.Name)
		}
		if len(name) > 3 && EditDistance(name, fl.Name) <= 2 {
			near = append(near, fl.Name)
		}
	})
	switch {
	case len(prefixed) == 1:
		return prefixed[0]
	case len(near) == 1:
		return near[0]
	}
	return ""
}

// EditDistance is the Levenshtein distance between a and b.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// ListFlag is a comma-separated list flag; each element is parsed with
// parse. Giving the flag again replaces the list.
type ListFlag[T any] struct {
	vals  *[]T
	parse func(string) (T, error)
	show  func(T) string
}

// List is the list flag of vals, each element read by parse and, when
// show is not nil, written back by it.
func List[T any](vals *[]T, parse func(string) (T, error), show func(T) string) ListFlag[T] {
	return ListFlag[T]{vals: vals, parse: parse, show: show}
}

func (l ListFlag[T]) String() string {
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

// Set parses the list. A value given twice is refused: it would run the
// same case twice under one name.
func (l ListFlag[T]) Set(s string) error {
	var out []T
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		v, err := l.parse(part)
		if err != nil {
			return err
		}
		shown := fmt.Sprint(v)
		if l.show != nil {
			shown = l.show(v)
		}
		if seen[shown] {
			return fmt.Errorf("%s is given twice", shown)
		}
		seen[shown] = true
		out = append(out, v)
	}
	if len(out) == 0 {
		return errors.New("empty list")
	}
	*l.vals = out
	return nil
}

// RateFlag is a share written as a percentage (0.1%) or a fraction
// (0.001), between 0 and 1.
type RateFlag struct{ Share *float64 }

func (r RateFlag) String() string {
	if r.Share == nil {
		return ""
	}
	return strconv.FormatFloat(100**r.Share, 'f', -1, 64) + "%"
}

func (r RateFlag) Set(s string) error {
	t := strings.TrimSpace(s)
	scale := 1.0
	if strings.HasSuffix(t, "%") {
		t, scale = strings.TrimSpace(strings.TrimSuffix(t, "%")), 0.01
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || v*scale < 0 || v*scale > 1 {
		return fmt.Errorf("%q is not a share between 0%% and 100%% (e.g. 0.1%% or 0.001)", s)
	}
	*r.Share = v * scale
	return nil
}

// ParseOnOff reads a switch as flags take it (plan.ParseOnOff).
func ParseOnOff(s string) (bool, error) { return plan.ParseOnOff(s) }

func ShowOnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func ParsePositiveInt(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a whole number of at least 1", s)
	}
	return n, nil
}

// hiddenFlags are internal flags left out of the help (the child server's
// control channel).
var hiddenFlags = map[string]bool{"control-fd": true}

// PrintFlags writes the flags' help like flag.PrintDefaults, with "--"
// names and without hidden flags.
func (f *FlagSet) PrintFlags(w io.Writer) {
	f.VisitAll(func(fl *flag.Flag) {
		if !hiddenFlags[fl.Name] {
			f.PrintFlag(w, fl)
		}
	})
}

// PrintFlag writes one flag's help, with the placeholder of its setting.
func (f *FlagSet) PrintFlag(w io.Writer, fl *flag.Flag) {
	name, usage := flag.UnquoteUsage(fl)
	if s := plan.Lookup(plan.CommandNamed(f.Cmd), fl.Name); s != nil {
		name = s.Placeholder // what the table says it takes
	}
	line := "  " + dashed(fl.Name) // -o, as the examples write it
	if name != "" {
		line += " " + name
	}
	fmt.Fprintln(w, line)
	def := fl.DefValue
	if def != "" && def != "false" && def != "0" && def != "0s" {
		usage += fmt.Sprintf(" (default %s)", def)
	}
	fmt.Fprintf(w, "        %s\n", usage)
}

// flagName writes a setting of the table as its flag: --handshakes.
func flagName(s *plan.Setting) string { return "--" + s.Name }

// fieldFlags writes a library field (of the server's or the proxy's
// options, of a case) as the flag that sets it: its setting's in the
// table, else the command's own in names (of the commands the table does
// not declare: proxy, kubernetes), else the field itself. Fields joined
// by "/" are written as their flags joined.
func fieldFlags(names map[string]string) func(field string) string {
	return func(name string) string {
		parts := strings.Split(name, "/")
		for i, p := range parts {
			if st := plan.OfField(p); st != nil {
				parts[i] = flagName(st)
			} else if f, ok := names[p]; ok {
				parts[i] = f
			}
		}
		return strings.Join(parts, "/")
	}
}

// PlanUsage turns a plan's error into a usage error (exit 2) that names
// flags.
func PlanUsage(err error) error {
	return &UsageError{Msg: UserText(err)}
}

// UserText is a library error's message as users read it: settings
// written as their flags, e.g. "--ticket-keys FILE: line 1: want 64 hex
// digits" for a *field.Error{Field: "TicketKeysFile"}, with whatever the
// error's wrappers said before it ("starting the built-in server: ").
func UserText(err error) string { return UserTextNamed(err, nil) }

// UserTextNamed is UserText for a command whose own flags set fields
// that the table does not declare: names maps them to those flags.
func UserTextNamed(err error, names map[string]string) string {
	var pe *plan.Error
	if errors.As(err, &pe) {
		return strings.TrimSuffix(err.Error(), pe.Error()) + pe.Text(flagName)
	}
	var fe *field.Error
	if errors.As(err, &fe) {
		return strings.TrimSuffix(err.Error(), fe.Error()) + fe.Text(fieldFlags(names))
	}
	return err.Error()
}

// FlagErrors rewrites the messages of a run's case failures with flags,
// keeping the errors for errors.As. A proxy's refusal of CONNECT gets
// the advice of words.
func FlagErrors(err error, words client.Words) error {
	fc, ok := err.(*runner.FailedCases)
	if !ok {
		return err
	}
	out := &runner.FailedCases{}
	for _, e := range fc.Errs {
		words.ProxyAdvice(e)
		out.Errs = append(out.Errs, &userError{msg: UserText(e), err: e})
	}
	return out
}

// userError is an error with its message written for users.
type userError struct {
	msg string
	err error
}

func (e *userError) Error() string { return e.msg }
func (e *userError) Unwrap() error { return e.err }

// runFlagNames are run's flags by the library fields their settings set
// (see plan.Setting.Fields): the words in which a case's errors and
// notes name the settings.
func runFlagNames() map[string]string {
	names := map[string]string{}
	for _, s := range plan.For(plan.Run) {
		for _, f := range s.Fields {
			if _, ok := names[f]; !ok {
				names[f] = flagName(s)
			}
		}
	}
	return names
}

// RunWords is how tlsbench run's user knows the settings of a case and
// the advice for its failures: the load generator's messages in the
// run's own vocabulary, its flags.
var RunWords = client.Words{
	Names: runFlagNames(),
	Advice: map[string]string{
		client.AdviceUntrusted:  "give the CA that issued the server's certificate with --ca FILE, or skip verification with --insecure",
		client.AdviceWrongName:  "the certificate is not for the server name asked for: give the name it is for with --sni NAME, or skip verification with --insecure",
		client.AdviceClientCert: "the server wants a client certificate: --mutual --client-cert FILE --client-key FILE",
		client.AdviceNotEcho:    "the target is not an echo server: leave out --request to have it asked which request it answers, or use --request http for an HTTP server",
	},
}

// ProxyWords is runWords with the advice for a proxy's refusals: the
// built-in proxy is configured by the run's flags, a proxy given by URL
// by its own configuration.
func ProxyWords(proxyURL string) client.Words {
	w := client.Words{Names: RunWords.Names, Advice: maps.Clone(RunWords.Advice)}
	if proxyURL == runner.ProxyBuiltin {
		w.Advice[client.AdviceProxyUntrusted] = "the proxy does not trust the target's certificate: give its CA with --ca"
		w.Advice[client.AdviceProxyFull] = "the proxy is at its connection limit: lower --concurrency"
		return w
	}
	w.Advice[client.AdviceProxyUntrusted] = "the proxy does not trust the target's certificate: make it trust the CA that issued it (tlsbench proxy: --origin-ca FILE; Squid: tls_outgoing_options cafile=FILE)"
	w.Advice[client.AdviceProxyFull] = "the proxy is at its connection limit: lower --concurrency, or raise the proxy's limit (tlsbench proxy: --max-conns)"
	w.Advice[client.AdviceProxyPort] = "the proxy does not tunnel to this port: allow it in the proxy's rules (tlsbench proxy: --connect-ports)"
	w.Advice[client.AdviceProxySource] = "the proxy does not serve this client's address: allow it in the proxy's rules (tlsbench proxy: --allow)"
	w.Advice[client.AdviceProxyDest] = "the proxy does not tunnel to the target's address: allow it in the proxy's rules (tlsbench proxy: --allow-dest), unless it is one no proxy should reach (link-local, multicast)"
	return w
}
