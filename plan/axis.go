package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// Axis makes a setting of the table a dimension of the matrix: each of
// its values makes cases of its own. Such a setting is its whole
// declaration: its values reach the plan (Values), the cases
// (Case.Value), their names and records, and the runner's hooks through
// its Param, with no field of its own anywhere.
type Axis struct {
	// Param is the record parameter the axis sets, and the key of the
	// runner's hooks for it.
	Param string
	// After is the Param of the axis whose name segment comes right
	// before its own: where its segment sits in a case name.
	After string
	// Rank orders the run: lower ranks vary slower (see axis.rank).
	Rank int
	// Server and Proxy say it configures the built-in server or proxy:
	// cases that differ in it do not share one.
	Server, Proxy bool
	// Parse reads one value of the comma-separated list; Label writes
	// it back as the flag takes it (params, errors, plan files).
	Parse func(string) (any, error)
	Label func(any) string
	// Segment is a value's segment of the case name; "" leaves it out
	// (a default, so that names stay as they were without the axis).
	Segment func(any) string
	// Record sets the record's typed field of the value, if it has one
	// (nil: params alone carry it).
	Record func(v any, r *results.Record)
	// Client configures the client for the value (nil: it does not).
	Client func(v any, o *tlsconf.ClientOptions)
	// Check refuses values that the rest of the matrix cannot measure,
	// before any case is made: an error naming the setting's field.
	Check func(vals []any, m *Matrix) error
	// NotRunnable says why a case with the value cannot be measured
	// ("" when it can); NotRunnableBy names the fields that make it so.
	NotRunnable   func(v any, c *Case) string
	NotRunnableBy string
}

// Values are the values of a plan's table axes, by their Param: those
// given, each axis's list in the order given.
type Values map[string][]any

// Value is the case's value of the table axis of that param, nil when
// the case's plan does not use the axis.
func (c *Case) Value(param string) any { return c.values[param] }

// ValueOf is the case's value of the table axis of that param, as T; ok
// is false when the case's plan does not use the axis.
func ValueOf[T any](c *Case, param string) (v T, ok bool) {
	v, ok = c.values[param].(T)
	return v, ok
}

// tableAxes are the settings of the table that are axes, in table order.
func tableAxes() []*Setting {
	var out []*Setting
	for i := range table {
		if table[i].Axis != nil && table[i].Commands&Run != 0 {
			out = append(out, &table[i])
		}
	}
	return out
}

// axis is the table setting's axis as the matrix reads one.
func (s *Setting) axis() axis {
	g := s.Axis
	a := axis{param: g.Param, field: s.Fields[0], modes: modeNames(s.Modes), rank: g.Rank, server: g.Server, proxy: g.Proxy,
		used:   func(m *Matrix) bool { return len(m.Values[g.Param]) > 0 },
		values: func(m *Matrix) []any { return m.Values[g.Param] },
		set: func(c *Case, v any) {
			c.values = maps.Clone(c.values)
			if c.values == nil {
				c.values = map[string]any{}
			}
			c.values[g.Param] = v
		},
		label:   func(c *Case) string { return g.Label(c.values[g.Param]) },
		segment: func(c *Case) string { return g.Segment(c.values[g.Param]) },
	}
	if g.Record != nil {
		a.record = func(c *Case, r *results.Record) { g.Record(c.values[g.Param], r) }
	}
	if g.Client != nil {
		a.client = func(c *Case, o *tlsconf.ClientOptions) { g.Client(c.values[g.Param], o) }
	}
	return a
}

func modeNames(m Mode) []string {
	var out []string
	if m&Handshake != 0 {
		out = append(out, ModeHandshake)
	}
	if m&Throughput != 0 {
		out = append(out, ModeThroughput)
	}
	return out
}

// allAxes is the axis table with the table's axes each after its After.
func allAxes() []axis {
	out := slices.Clone(axes)
	for _, s := range tableAxes() {
		i := slices.IndexFunc(out, func(a axis) bool { return a.param == s.Axis.After })
		if i < 0 {
			panic(fmt.Sprintf("plan: axis %s comes after %q, which is no axis", s.Axis.Param, s.Axis.After))
		}
		out = slices.Insert(out, i+1, s.axis())
	}
	return out
}

// Check refuses table axis values that the rest of the matrix cannot
// measure (see Axis.Check).
func (m *Matrix) Check() error {
	for _, s := range tableAxes() {
		if vals := m.Values[s.Axis.Param]; len(vals) > 0 && s.Axis.Check != nil {
			if err := s.Axis.Check(vals, m); err != nil {
				if f, ok := err.(*fault); ok {
					return f.resolve()
				}
				return err
			}
		}
	}
	return nil
}

// tableNotRunnable is why the case cannot run by its table axes' values,
// with the fields that make it so; "" when it can.
func (c *Case) tableNotRunnable() (why, by string) {
	for _, s := range tableAxes() {
		v, ok := c.values[s.Axis.Param]
		if !ok || s.Axis.NotRunnable == nil {
			continue
		}
		if why := s.Axis.NotRunnable(v, c); why != "" {
			return why, s.Axis.NotRunnableBy
		}
	}
	return "", ""
}

// ParseAxis reads a table axis's comma-separated list of values as its
// flag takes it, refusing a value given twice (its cases would run twice
// under one name) and an empty list.
func (s *Setting) ParseAxis(text string) ([]any, error) {
	var out []any
	seen := map[string]bool{}
	for _, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		v, err := s.Axis.Parse(part)
		if err != nil {
			return nil, err
		}
		l := s.Axis.Label(v)
		if seen[l] {
			return nil, fmt.Errorf("%s is given twice", l)
		}
		seen[l] = true
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty list")
	}
	return out, nil
}

// AxisLabels writes a table axis's values as its flag takes them.
func (s *Setting) AxisLabels(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = s.Axis.Label(v)
	}
	return strings.Join(parts, ",")
}
