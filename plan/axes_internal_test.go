package plan

import (
	"crypto/tls"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// handshakes is the matrix of a handshake plan with m's axes and the
// defaults of the axes it leaves out, as a runner plan fills them.
func handshakes(m Matrix) *Matrix {
	m.Mode = ModeHandshake
	if m.Keys == nil {
		m.Keys = []pki.KeyType{DefaultKeyType}
	}
	if m.KeyCache == nil {
		m.KeyCache = []bool{true}
	}
	if m.Groups == nil {
		m.Groups = []tls.CurveID{0}
	}
	if m.Ciphers == nil {
		m.Ciphers = []string{""}
	}
	if m.Transports == nil {
		m.Transports = []string{TransportTCP4}
	}
	m.Arrival = results.ArrivalConstant
	return &m
}

// TestAxisTableIsComplete: every axis says everything a dimension must
// say (its record parameter, its plan field, its modes, its values, its
// name segment and label), and no two axes share a parameter or field.
func TestAxisTableIsComplete(t *testing.T) {
	t.Parallel()
	params, fields := map[string]bool{}, map[string]bool{}
	for _, a := range axes {
		if a.param == "" || a.field == "" || len(a.modes) == 0 || a.values == nil || a.set == nil || a.label == nil || a.segment == nil {
			t.Errorf("axis %q (%s) lacks a part: %+v", a.param, a.field, a)
		}
		if params[a.param] || fields[a.field] {
			t.Errorf("axis %q (%s) is in the table twice", a.param, a.field)
		}
		params[a.param], fields[a.field] = true, true
	}
}

// TestEveryCaseCarriesEveryParam: a case's params name every axis of its
// mode, and its name holds every segment an axis gives it.
func TestEveryCaseCarriesEveryParam(t *testing.T) {
	t.Parallel()
	hp := handshakes(Matrix{Versions: []uint16{tls.VersionTLS12, tls.VersionTLS13}, Resume: []bool{false, true}, Concurrency: []int{8},
		Ciphers: []string{tlsconf.CipherAES128GCM, tlsconf.CipherChaCha20Poly1305}, Transports: []string{TransportTCP6, TransportMemory}})
	tp := &Matrix{Mode: ModeThroughput, Versions: []uint16{tls.VersionTLS13}, Keys: []pki.KeyType{DefaultKeyType}, Ciphers: []string{tlsconf.CipherAES128GCM},
		Buffers: []int{16 << 10}, Directions: []string{DirectionDownload}, KTLS: []ktls.Mode{ktls.ModeOff}, Concurrency: []int{1}}
	cases := append(hp.Cases(), tp.Cases()...)
	if len(cases) != 17 {
		t.Fatalf("%d cases, want 16 handshake and 1 throughput", len(cases))
	}
	for _, c := range cases {
		for _, a := range c.m.axes {
			if _, ok := c.Params[a.param]; !ok {
				t.Errorf("%s: no param %s", c.Name, a.param)
			}
			if s := a.segment(&c); s != "" && !slices.Contains(strings.Split(c.Name, "/"), s) {
				t.Errorf("%s: no segment %q of %s", c.Name, s, a.param)
			}
		}
	}
}

// TestNewAxisIsOneEntry adds an axis to the table, as a new dimension
// would be added, and checks that cases, names, params, the server
// grouping and the configuration all follow from that one entry.
func TestNewAxisIsOneEntry(t *testing.T) {
	// Not parallel: it changes the table, which the parallel tests of
	// this package read only after the sequential ones end.
	saved := slices.Clone(axes)
	defer func() { axes = saved }()
	type fakeValue string
	var applied []string
	axes = append(axes, axis{param: "record_size", field: "RecordSizes", modes: handshakeOnly, rank: 3, server: true,
		values:  func(*Matrix) []any { return []any{fakeValue("small"), fakeValue("big")} },
		set:     func(c *Case, v any) { c.Direction = string(v.(fakeValue)) }, // any spare field will do
		label:   func(c *Case) string { return c.Direction },
		segment: func(c *Case) string { return "rs-" + c.Direction },
		client:  func(c *Case, o *tlsconf.ClientOptions) { applied = append(applied, c.Direction) },
	})
	m := handshakes(Matrix{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false, true}, Concurrency: []int{1}})
	cases := m.Cases()
	var names []string
	for _, c := range cases {
		names = append(names, c.Name)
		var o tlsconf.ClientOptions
		c.ConfigureClient(&o)
	}
	want := []string{"handshake/tls1.3/full/c1/rs-small", "handshake/tls1.3/resume/c1/rs-small",
		"handshake/tls1.3/full/c1/rs-big", "handshake/tls1.3/resume/c1/rs-big"}
	if !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	if got := cases[0].Params["record_size"]; got != "small" {
		t.Errorf("params %v: record_size %q, want small", cases[0].Params, got)
	}
	if !SameServer(&cases[0], &cases[1]) || SameServer(&cases[1], &cases[2]) {
		t.Error("a server axis must split the cases into one server per value, and only there")
	}
	if !slices.Equal(applied, []string{"small", "small", "big", "big"}) {
		t.Errorf("client hook applied %v", applied)
	}
	if err := handshakes(Matrix{Versions: m.Versions, Resume: m.Resume, Concurrency: m.Concurrency}).Duplicates(); err != nil {
		t.Errorf("duplicates: %v", err)
	}
}

// TestServerGroupsFollowServerAxes: cases share a built-in server exactly
// when they agree on every axis marked server (key type, key cache,
// transport), never on a client-only one.
func TestServerGroupsFollowServerAxes(t *testing.T) {
	t.Parallel()
	m := handshakes(Matrix{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false, true}, Concurrency: []int{1},
		Keys: []pki.KeyType{pki.ECDSAP256, pki.RSA2048}, Transports: []string{TransportTCP4, TransportTCP6, TransportMemory},
		Ciphers: []string{tlsconf.CipherAES128GCM, tlsconf.CipherChaCha20Poly1305}})
	cases := m.Cases()
	groups := 1
	for i := 1; i < len(cases); i++ {
		a, b := &cases[i-1], &cases[i]
		same := a.KeyType == b.KeyType && a.Transport == b.Transport && a.KeyCache == b.KeyCache
		if SameServer(a, b) != same {
			t.Errorf("%s and %s: SameServer %v, want %v", a.Name, b.Name, !same, same)
		}
		if !same {
			groups++
		}
	}
	if groups != 6 {
		t.Errorf("%d server groups, want 6 (2 key types x 3 transports)", groups)
	}
}

// TestCurveNotOffered: a TLS 1.2 client that offers only a group other
// than its ECDSA server certificate's curve gets no certificate from a Go
// server, so such a case is reported as not runnable instead of failing
// every handshake.
func TestCurveNotOffered(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		version uint16
		group   tls.CurveID
		key     pki.KeyType
		want    bool
	}{
		{tls.VersionTLS12, tls.X25519, pki.ECDSAP256, true},
		{tls.VersionTLS12, tls.CurveP384, pki.ECDSAP256, true},
		{tls.VersionTLS12, tls.X25519, pki.ECDSAP384, true},
		{tls.VersionTLS12, tls.CurveP256, pki.ECDSAP256, false},
		{tls.VersionTLS12, tls.CurveP384, pki.ECDSAP384, false},
		{tls.VersionTLS12, 0, pki.ECDSAP256, false},
		{tls.VersionTLS12, tls.X25519, pki.RSA2048, false},
		{tls.VersionTLS12, tls.X25519, pki.Ed25519, false},
		{tls.VersionTLS12, tls.X25519, "", false}, // a target's own certificate
		{tls.VersionTLS13, tls.X25519, pki.ECDSAP256, false},
	} {
		c := &Case{Mode: ModeHandshake, Version: tt.version, Group: tt.group, KeyType: tt.key}
		got := curveNotOffered(c)
		if (got != "") != tt.want {
			t.Errorf("TLS %x group %v key %q: %q, want not runnable %v", tt.version, tt.group, tt.key, got, tt.want)
		}
	}
	m := handshakes(Matrix{Versions: []uint16{tls.VersionTLS12, tls.VersionTLS13}, Resume: []bool{false}, Concurrency: []int{1},
		Groups: []tls.CurveID{tls.X25519}})
	cases := m.Cases()
	if len(cases) != 2 || cases[0].NotRunnable == "" || cases[1].NotRunnable != "" {
		t.Fatalf("cases %+v: want TLS 1.2 not runnable, TLS 1.3 runnable", cases)
	}
	if !strings.Contains(cases[0].NotRunnable, "add p256 to the groups") {
		t.Errorf("reason %q names no fix", cases[0].NotRunnable)
	}
}

// TestEveryAxisIsASetting: every axis is set by a setting of the
// table, which gives it its flag, help and plan-file key, and takes a
// list when the axis can have several values.
func TestEveryAxisIsASetting(t *testing.T) {
	t.Parallel()
	for _, s := range tableAxes() {
		g := s.Axis
		if len(s.Fields) == 0 || g.Param == "" || g.Parse == nil || g.Label == nil || g.Segment == nil || s.Kind != List {
			t.Errorf("--%s: an axis of the table needs its field, param, parser, label and segment, and takes a list", s.Name)
		}
	}
	for _, a := range axes {
		s := OfField(a.field)
		if s == nil {
			t.Errorf("axis %q: no setting of the table sets %s", a.param, a.field)
			continue
		}
		if s.Commands&Run == 0 {
			t.Errorf("axis %q: its setting --%s is not one of tlsbench run", a.param, s.Name)
		}
	}
}

// TestTableAxisIsOneEntry adds a setting with an axis to the settings
// table, as a new dimension would be added, and checks that everything
// follows from that one entry: its cases, their names (its segment where
// After says), params and records, the client's configuration, its
// checks, the cases it cannot run, the server grouping and the parsing
// of its flag.
func TestTableAxisIsOneEntry(t *testing.T) {
	// Not parallel: it changes the table, which the parallel tests of
	// this package read only after the sequential ones end.
	// The table as it was, the same entries (Settings points into
	// them): the entry is added to a copy.
	saved := table
	defer func() { table = saved }()
	var applied []int
	table = append(slices.Clip(table), Setting{Name: "record-limit", Fields: []string{"RecordLimits"}, Commands: Run, Kind: List, Modes: Handshake,
		Axis: &Axis{Param: "record_limit", After: "tls_version", Rank: 3, Server: true,
			Parse: func(s string) (any, error) { return strconv.Atoi(s) },
			Label: func(v any) string { return strconv.Itoa(v.(int)) },
			Segment: func(v any) string {
				if v.(int) == 0 {
					return ""
				}
				return "rl" + strconv.Itoa(v.(int))
			},
			Record: func(v any, r *results.Record) { r.BufferBytes = v.(int) }, // any spare field will do
			Client: func(v any, o *tlsconf.ClientOptions) { applied = append(applied, v.(int)) },
			Check: func(vals []any, m *Matrix) error {
				if slices.Contains(vals, any(7)) {
					return field.Errorf("RecordLimits", 7, "unlucky")
				}
				return nil
			},
			NotRunnable: func(v any, c *Case) string {
				if v.(int) == 64 && c.Resume {
					return "not runnable: resumed at 64"
				}
				return ""
			},
			NotRunnableBy: "RecordLimits/Resume",
		}})
	s := Lookup(Run, "record-limit")
	vals, err := s.ParseAxis("0,64")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ParseAxis("64,64"); err == nil || err.Error() != "64 is given twice" {
		t.Errorf("a value given twice: %v", err)
	}
	m := handshakes(Matrix{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false, true}, Concurrency: []int{1},
		Values: Values{"record_limit": vals}})
	if err := m.Check(); err != nil {
		t.Errorf("check: %v", err)
	}
	cases := m.Cases()
	var names []string
	for _, c := range cases {
		names = append(names, c.Name)
		var o tlsconf.ClientOptions
		c.ConfigureClient(&o)
	}
	want := []string{"handshake/tls1.3/full/c1", "handshake/tls1.3/resume/c1",
		"handshake/tls1.3/rl64/full/c1", "handshake/tls1.3/rl64/resume/c1"}
	if !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	var r results.Record
	cases[2].Record(&r)
	if r.Params["record_limit"] != "64" || r.BufferBytes != 64 || cases[0].Params["record_limit"] != "0" {
		t.Errorf("record: params %v, typed field %d", r.Params, r.BufferBytes)
	}
	if v, ok := ValueOf[int](&cases[2], "record_limit"); !ok || v != 64 {
		t.Errorf("value %v %v, want 64", v, ok)
	}
	if !slices.Equal(applied, []int{0, 0, 64, 64}) {
		t.Errorf("client hook applied %v", applied)
	}
	if cases[2].NotRunnable != "" || cases[3].NotRunnable == "" || cases[3].NotRunnableBy() != "RecordLimits/Resume" {
		t.Errorf("not runnable: %q, %q (%s)", cases[2].NotRunnable, cases[3].NotRunnable, cases[3].NotRunnableBy())
	}
	if !SameServer(&cases[0], &cases[1]) || SameServer(&cases[1], &cases[2]) {
		t.Error("a server axis must split the cases into one server per value, and only there")
	}
	if !slices.Contains(AxisParams(), "record_limit") {
		t.Errorf("hooks' keys %v lack the new axis", AxisParams())
	}
	m.Values["record_limit"] = []any{7}
	if err := m.Check(); err == nil {
		t.Error("the axis's own check was not run")
	}
}

// TestResumptionAxis: session-id adds a sid segment after resume (the
// tickets value keeps today's names), is recorded in params and the
// typed field, and is not runnable where it cannot be measured: TLS 1.3,
// the built-in server or proxy.
func TestResumptionAxis(t *testing.T) {
	t.Parallel()
	s := Lookup(Run, "resumption")
	vals, err := s.ParseAxis("tickets,session-id")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ParseAxis("psk"); err == nil {
		t.Error("psk parsed")
	}
	target := handshakes(Matrix{Versions: []uint16{tls.VersionTLS12, tls.VersionTLS13}, Resume: []bool{false, true}, Concurrency: []int{8},
		Keys: []pki.KeyType{""}, Values: Values{"resumption": vals}})
	if err := target.Check(); err != nil {
		t.Fatalf("check: %v", err)
	}
	var names, runnable []string
	cases := target.Cases()
	for _, c := range cases {
		names = append(names, c.Name)
		if c.NotRunnable == "" {
			runnable = append(runnable, c.Name)
		} else if c.Version != tls.VersionTLS13 || !strings.Contains(c.NotRunnable, "TLS 1.3 resumes by ticket only") {
			t.Errorf("%s: not runnable %q", c.Name, c.NotRunnable)
		}
	}
	want := []string{"handshake/tls1.2/full/c8", "handshake/tls1.2/full/sid/c8", "handshake/tls1.2/resume/c8", "handshake/tls1.2/resume/sid/c8",
		"handshake/tls1.3/full/c8", "handshake/tls1.3/full/sid/c8", "handshake/tls1.3/resume/c8", "handshake/tls1.3/resume/sid/c8"}
	if !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	if len(runnable) != 6 {
		t.Errorf("runnable %v: want every TLS 1.2 case and the TLS 1.3 tickets cases", runnable)
	}
	var r results.Record
	cases[3].Record(&r)
	if r.Resumption != ResumptionSessionID || r.Params["resumption"] != ResumptionSessionID || cases[2].Params["resumption"] != ResumptionTickets {
		t.Errorf("record %q, params %v", r.Resumption, r.Params)
	}
	if v, _ := ValueOf[string](&cases[3], "resumption"); v != ResumptionSessionID {
		t.Errorf("value %q", v)
	}

	builtin := handshakes(Matrix{Versions: []uint16{tls.VersionTLS12}, Resume: []bool{true}, Concurrency: []int{1},
		Values: Values{"resumption": vals}})
	bc := builtin.Cases()
	if bc[0].NotRunnable != "" || !strings.Contains(bc[1].NotRunnable, "the built-in server, like every crypto/tls server, resumes TLS 1.2 by ticket only") ||
		bc[1].NotRunnableBy() != "Resumption" {
		t.Errorf("built-in server: %q, %q (%s)", bc[0].NotRunnable, bc[1].NotRunnable, bc[1].NotRunnableBy())
	}
	proxied := handshakes(Matrix{Versions: []uint16{tls.VersionTLS12}, Resume: []bool{true}, Concurrency: []int{1}, Proxy: ProxyBuiltin,
		Values: Values{"resumption": vals}})
	if pc := proxied.Cases(); !strings.Contains(pc[1].NotRunnable, "the built-in proxy") {
		t.Errorf("built-in proxy: %q", pc[1].NotRunnable)
	}
	only13 := handshakes(Matrix{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{true}, Concurrency: []int{1},
		Values: Values{"resumption": vals}})
	var fe *Error
	if err := only13.Check(); !errors.As(err, &fe) || fe.Setting.Name != "resumption" {
		t.Errorf("TLS 1.3 only with session-id: %v", err)
	}
}
