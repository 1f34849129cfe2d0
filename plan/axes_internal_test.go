package plan

import (
	"crypto/tls"
	"slices"
	"strings"
	"testing"

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
