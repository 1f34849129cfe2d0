package command

import (
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/keys"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
	"github.com/tlsbench/tlsbench/server"
)

// Flags of run, serve and compare are defined from plan's settings
// table: the name, the help and the placeholder are the table's; the
// storage, the parser and the default value stay here, and a test holds
// the default to the table's.

// setting is the table's entry of a flag of f's command; a flag without
// one is a mistake found at its first use.
func (f *FlagSet) setting(name string) *plan.Setting {
	s := plan.Lookup(plan.CommandNamed(f.Cmd), name)
	if s == nil {
		panic(fmt.Sprintf("tlsbench %s --%s has no entry in the settings table", f.Cmd, name))
	}
	return s
}

// Def defines the flag of a table setting, stored and parsed by v.
func (f *FlagSet) Def(name string, v flag.Value) {
	f.Var(v, name, HelpText(f.setting(name)))
}

func (f *FlagSet) DefInt(p *int, name string, def int) {
	f.IntVar(p, name, def, HelpText(f.setting(name)))
}

func (f *FlagSet) DefString(p *string, name string, def string) {
	f.StringVar(p, name, def, HelpText(f.setting(name)))
}

func (f *FlagSet) DefBool(p *bool, name string, def bool) {
	f.BoolVar(p, name, def, HelpText(f.setting(name)))
}

func (f *FlagSet) DefDuration(p *time.Duration, name string, def time.Duration) {
	f.DurationVar(p, name, def, HelpText(f.setting(name)))
}

func (f *FlagSet) DefFloat64(p *float64, name string, def float64) {
	f.Float64Var(p, name, def, HelpText(f.setting(name)))
}

// helpFacts fill in the {name} facts of the table's help texts, from the
// constants that enforce them.
var helpFacts = map[string]func() string{
	"p12-password-env":        func() string { return keys.PasswordEnv },
	"max-session-capacity":    func() string { return strconv.Itoa(server.MaxSessionCapacity) },
	"max-session-ttl":         func() string { return server.MaxSessionTTL.String() },
	"max-handshake-timeout":   func() string { return server.MaxHandshakeTimeout.String() },
	"versus-settings":         versusSettingNames,
	"regression-metrics":      func() string { return strings.Join(results.Metrics(), ", ") },
	"early-data-policy-usage": func() string { return earlyDataPolicyUsage },
	"key-types":               KeyTypeNames,
	"max-idle-timeout":        func() string { return MaxIdleTimeout.String() },
	"max-first-byte-timeout":  func() string { return server.MaxFirstByteTimeout.String() },
	"default-max-conns":       func() string { return strconv.Itoa(server.DefaultMaxConns()) },
	"max-max-conns":           func() string { return strconv.Itoa(server.MaxMaxConns) },
}

// HelpText is a setting's help with its facts filled in.
func HelpText(s *plan.Setting) string {
	text := s.Help
	for {
		start := strings.IndexByte(text, '{')
		end := strings.IndexByte(text[max(start, 0):], '}')
		if start < 0 || end < 0 {
			return text
		}
		name := text[start+1 : start+end]
		fact, ok := helpFacts[name]
		if !ok {
			panic(fmt.Sprintf("--%s: the help's fact {%s} is not known", s.Name, name))
		}
		text = text[:start] + fact() + text[start+end+1:]
	}
}

// enumValues are the fixed values of the settings whose parsers live in
// packages above plan, from the parsers' own constants.
var enumValues = map[string]func() []string{
	"session-store": func() []string { return []string{server.StoreTickets, server.StoreStateful} },
	"early-data-policy": func() []string {
		return []string{server.EarlyDataSingleUse, server.EarlyDataReject, server.EarlyDataAccept}
	},
	"format":  func() []string { return formatNames() },
	"request": requestNames,
	"log-level": func() []string {
		var out []string
		for _, l := range logLevels {
			out = append(out, l.name)
		}
		return out
	},
}

// ValuesOf are a setting's fixed values, "" for none.
func ValuesOf(s *plan.Setting) []string {
	if s.Values != nil {
		return s.Values
	}
	if f, ok := enumValues[s.Name]; ok {
		v := f()
		slices.Sort(v)
		return v
	}
	return nil
}

// requestNames are --request's values: the exchanges of handshake cases
// and the wires of throughput cases.
func requestNames() []string {
	var out []string
	for _, r := range client.Requests() {
		out = append(out, string(r))
	}
	return append(out, runner.RequestBulk)
}

func formatNames() []string {
	var out []string
	for _, f := range report.Formats() {
		out = append(out, string(f))
	}
	return out
}
