package runner

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/server"
)

// Versus is the other side of an interleaved A/B run: every handshake
// case is measured against the plan's own server (side a) and this one
// (side b) in one run, their iterations alternating in ABBA order, so
// that whatever drifts while the run goes on (other load, the CPU's
// frequency) hits both alike. Give one of Target, Executable or Self;
// Self beside Target or Executable measures a third side, a second
// instance of side a (a2), whose difference from side a is the noise
// floor of the same run.
type Versus struct {
	// Target is a second external server (with Plan.Target): its Addr,
	// and optionally the ServerPID whose CPU is sampled. The clients
	// verify it as they verify Plan.Target (name, CA, identity).
	Target Target
	// Executable runs side b's built-in server from another tlsbench
	// program (another version, another Go, a patched crypto/tls), in
	// its own child process beside side a's.
	Executable string
	// Self measures the plan's own server twice: an A/A run, whose
	// differences are noise.
	Self bool
	// Settings change side b's built-in server (see VersusSettings).
	Settings []VersusSetting
}

// VersusSetting is one setting of side b's built-in server that differs
// from side a's, as name=value (e.g. key-cache=off).
type VersusSetting struct{ Name, Value string }

func (s VersusSetting) String() string { return s.Name + "=" + s.Value }

// versusSetter applies one setting's value to the server's options.
type versusSetter struct {
	// takes says what the value is, for errors.
	takes string
	apply func(o *server.Options, v string) error
}

// VersusSettings are the names side b's settings may have: the built-in
// server's settings that change what a handshake costs without changing
// what the case's record describes (its name and params stay side a's;
// Record.Versus names the difference).
var VersusSettings = map[string]versusSetter{
	"key-cache": {takes: "on or off", apply: func(o *server.Options, v string) error {
		on, err := parseOnOffValue(v)
		o.DisableKeyCache = !on
		return err
	}},
	"ticket-keys": {takes: "a file of session ticket keys", apply: func(o *server.Options, v string) error {
		if _, err := os.Stat(v); err != nil {
			return fmt.Errorf("no such file %s", v)
		}
		o.TicketKeysFile = v
		return nil
	}},
	"session-capacity": {takes: "a whole number of at least 1", apply: func(o *server.Options, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("want a whole number of at least 1")
		}
		o.SessionCapacity = n
		return nil
	}},
	"session-ttl": {takes: "a duration, e.g. 10m", apply: func(o *server.Options, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("want a positive duration with a unit, e.g. 10m")
		}
		o.SessionTTL = d
		return nil
	}},
	// What the server does with early data over QUIC: what the first
	// response costs with each policy, measured in one run.
	"early-data-policy": {takes: "accept, reject or single-use", apply: func(o *server.Options, v string) error {
		switch v {
		case server.EarlyDataAccept, server.EarlyDataReject, server.EarlyDataSingleUse:
			o.EarlyDataPolicy = v
			return nil
		}
		return fmt.Errorf("want %s, %s or %s", server.EarlyDataAccept, server.EarlyDataReject, server.EarlyDataSingleUse)
	}},
	"handshake-timeout": {takes: "a duration, e.g. 10s", apply: func(o *server.Options, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("want a positive duration with a unit, e.g. 10s")
		}
		o.HandshakeTimeout = d
		return nil
	}},
}

func parseOnOffValue(v string) (bool, error) {
	switch v {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, fmt.Errorf("want on or off")
}

// enabled reports whether the plan is an interleaved run.
func (v *Versus) enabled() bool {
	return v.Target.Addr != "" || v.Executable != "" || v.Self
}

// describe is Record.Versus: what side b is.
func (v *Versus) describe() string {
	var s string
	switch {
	case v.Target.Addr != "":
		s = v.Target.Addr
	case v.Executable != "":
		s = "server " + v.Executable
	default:
		s = "self"
	}
	if len(v.Settings) > 0 {
		parts := make([]string, len(v.Settings))
		for i, st := range v.Settings {
			parts[i] = st.String()
		}
		s += " with " + strings.Join(parts, ",")
	}
	return s
}

// sideSpec is what one side of an interleaved run measures.
type sideSpec struct {
	name string // results.SideA, SideB or SideA2
	// target is the side's external server; empty Addr: the built-in
	// one, run from executable ("": the plan's) with settings applied.
	target     Target
	executable string
	settings   []VersusSetting
}

// sides lists the sides of the plan's cases: side a alone when the run
// is not interleaved.
func (p *Plan) sides() []sideSpec {
	a := sideSpec{name: results.SideA, target: p.Target}
	v := &p.Versus
	if !v.enabled() {
		a.name = ""
		return []sideSpec{a}
	}
	b := sideSpec{name: results.SideB, target: p.Target, executable: v.Executable, settings: v.Settings}
	if v.Target.Addr != "" {
		b.target = p.Target
		b.target.Addr, b.target.ServerPID, b.target.Command = v.Target.Addr, v.Target.ServerPID, v.Target.Command
	}
	out := []sideSpec{a, b}
	if v.Self && (v.Target.Addr != "" || v.Executable != "") {
		a2 := a
		a2.name = results.SideA2
		out = append(out, a2)
	}
	return out
}

// validateVersus checks the other side of an interleaved run by the
// plan's rules, then side b's settings.
func (p *Plan) validateVersus() error {
	v := &p.Versus
	err := plan.Interleaved{
		Addr: v.Target.Addr, PID: v.Target.ServerPID, Command: v.Target.Command, Executable: v.Executable, Self: v.Self, Settings: len(v.Settings) > 0,
		SideA: p.Target.Addr, Listen: p.Server.Listen, Proxy: p.Proxy.URL, Memory: slices.Contains(p.Transports, TransportMemory),
	}.Check()
	if err != nil || !v.enabled() {
		return err
	}
	return validateSettings(v.Settings)
}

// validateSettings checks side b's settings by name and value.
func validateSettings(settings []VersusSetting) error {
	seen := map[string]bool{}
	for _, s := range settings {
		set, ok := VersusSettings[s.Name]
		if !ok {
			return plan.Errorf(plan.Settings.VersusSet, s.String(), "%s is not a setting side b can change; it can change %s", s.Name, settingNames())
		}
		if seen[s.Name] {
			return plan.Errorf(plan.Settings.VersusSet, s.String(), "%s is given twice", s.Name)
		}
		seen[s.Name] = true
		var o server.Options
		if err := set.apply(&o, s.Value); err != nil {
			return plan.Errorf(plan.Settings.VersusSet, s.String(), "%v", err)
		}
	}
	return nil
}

// settingNames lists VersusSettings' names, sorted, for errors and help.
func settingNames() string {
	names := make([]string, 0, len(VersusSettings))
	for n := range VersusSettings {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// applySettings changes o as the side's settings say (validated).
func (sp *sideSpec) applySettings(o *server.Options) {
	for _, s := range sp.settings {
		_ = VersusSettings[s.Name].apply(o, s.Value)
	}
}

// recordSettings makes a side's record say what its settings changed
// that the record describes: the key cache (its typed field and param),
// so that side b's record is true of side b's server. The name stays the
// case's, which pairs the sides.
func (sp *sideSpec) recordSettings(r *results.Record) {
	for _, s := range sp.settings {
		if s.Name != "key-cache" {
			continue
		}
		r.KeyCache = results.Bool(s.Value == "on")
		r.Params = maps.Clone(r.Params)
		if r.Params == nil {
			r.Params = map[string]string{}
		}
		r.Params["key_cache"] = s.Value
	}
}
