package runner

import (
	"crypto/tls"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// Modes of a case.
const (
	ModeHandshake  = "handshake"
	ModeThroughput = "throughput"
)

// Case is one point of the axes: a value of every axis of its mode.
type Case struct {
	Name    string
	Mode    string // ModeHandshake or ModeThroughput
	Version uint16
	Resume  bool
	// ResumeRatio, when the plan gives shares, is the case's share of
	// connections that offer a session (Resume is then set for any
	// share above 0); nil otherwise.
	ResumeRatio *float64
	Mutual      bool
	KeyType     pki.KeyType // "": an external target's own certificate
	KeyCache    bool
	Group       tls.CurveID // 0: Go's defaults
	Cipher      string      // "": Go's defaults (handshake cases)
	Transport   string
	// EarlyData sends the request as TLS 1.3 early data (0-RTT) on
	// resumed connections (QUIC cases).
	EarlyData   bool
	Buffer      int
	Direction   string
	KTLS        ktls.Mode
	Concurrency int
	// Rate, in an open-loop case, is its starts per second (Concurrency
	// is then 0), and Arrival the schedule's shape.
	Rate    float64
	Arrival string
	// File says the server sends a file (--source) instead of a stream.
	File bool
	// Proxy is the proxy the client connects through: ProxyBuiltin, a
	// URL, or "" (none). Request is the throughput wire (loadgen's
	// "bulk" or "http"; "" is bulk). ReadFill and MintCache configure
	// the built-in proxy.
	Proxy     string
	Request   string
	ReadFill  bool
	MintCache bool
	// NotRunnable says why the case cannot be measured (TLS 1.3
	// AES-256-GCM between two Go endpoints); it is reported, not run.
	NotRunnable string
	// notRunnableBy names the fields whose values make it so, for the
	// error when no case of a plan can run.
	notRunnableBy string
	// Params are the case's parameters as its record carries them.
	Params map[string]string

	m *matrix
}

// matrix is a plan's axes with their defaults applied, the same for both
// modes: what the axis table reads.
type matrix struct {
	mode     string
	versions []uint16
	resume   []bool
	// resumeRatios, when set, replace resume: shares of connections
	// that offer a session.
	resumeRatios []float64
	mutual       bool
	keys         []pki.KeyType
	keyCache     []bool
	nameKeyCache bool // given identities, or a key-cache comparison
	groups       []tls.CurveID
	ciphers      []string
	transports   []string
	// earlyData, when set, is the early-data axis (QUIC cases).
	earlyData   []bool
	buffers     []int
	directions  []string
	ktls        []ktls.Mode
	concurrency []int
	// rates, when set, replace concurrency: open-loop cases on a
	// schedule of arrival's shape.
	rates   []float64
	arrival string
	file    bool
	// The proxy axes: used only when set (proxy not "", the lists not
	// empty), so that runs without a proxy keep their names and params.
	proxy     string
	request   string
	readFill  []bool
	mintCache []bool

	axes []axis // the mode's axes, in table order (set by cases)
}

// axis is one dimension of the matrix. Everything a value does is here:
// the cases it makes, its segment of the case name, its record parameter
// and typed field, and how it configures the client and the built-in
// server. A new dimension is one entry (and its hooks).
type axis struct {
	// param is the record field the axis sets, and its key in params.
	param string
	// field is the plan field that lists its values, named in errors.
	field string
	modes []string
	// rank orders the run: lower ranks vary slower (outer loops), so
	// that the cases of one server and the variants of one cell sit
	// together. The table's own order is the order of name segments.
	rank int
	// server marks axes that configure the built-in server: cases that
	// differ in one run against different servers. proxy marks those that
	// configure the built-in proxy, restarted when one changes.
	server bool
	proxy  bool
	// serverKey, of a server axis, is what of the case's value the
	// server sees, when not all of it (nil: label): cases equal in it
	// share a server.
	serverKey func(c *Case) string
	// used says whether the plan uses the axis at all (nil: always). An
	// unused axis makes no cases, no name segment and no param.
	used   func(m *matrix) bool
	values func(m *matrix) []any
	set    func(c *Case, v any)
	// label writes the case's value as the flag takes it (params, errors).
	label func(c *Case) string
	// segment is the case's name segment; "" leaves it out (a default).
	segment func(c *Case) string
	// record sets the record's typed field (nil: loadgen sets it).
	record func(c *Case, r *results.Record)
	client func(c *Case, o *tlsconf.ClientOptions)
	serve  func(c *Case, o *server.Options)
	// relay configures the built-in proxy (proxy axes).
	relay func(c *Case, o *proxySettings)
}

func anys[T any](v []T) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = x
	}
	return out
}

// RateName writes a rate as flags take it and case names show it:
// 2000, 0.5.
func RateName(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }

// MixName is the name segment of a share of resumed connections: full
// (0), resume (1), or mix and the percentage between them, e.g. mix50
// for 0.5, mix12.5 for 0.125.
func MixName(f float64) string {
	switch f {
	case 0:
		return "full"
	case 1:
		return "resume"
	}
	return "mix" + strconv.FormatFloat(100*f, 'g', 10, 64)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// axes is the table. Its order is the order of the segments in a case
// name; rank orders the run.
var axes = []axis{
	{param: "proxy", field: "Proxy.URL", modes: both, rank: 0,
		used:   func(m *matrix) bool { return m.proxy != "" },
		values: func(m *matrix) []any { return []any{m.proxy} },
		set:    func(c *Case, v any) { c.Proxy = v.(string) },
		label:  func(c *Case) string { return c.Proxy },
		// The URL's port changes from run to run: names say which kind
		// of proxy, params and the record which one.
		segment: func(c *Case) string {
			if c.Proxy == ProxyBuiltin {
				return "proxy-builtin"
			}
			return "proxy-url"
		},
		record: func(c *Case, r *results.Record) { r.Proxy = c.Proxy }},
	{param: "tls_version", field: "Versions", modes: both, rank: 4,
		values:  func(m *matrix) []any { return anys(m.versions) },
		set:     func(c *Case, v any) { c.Version = v.(uint16) },
		label:   func(c *Case) string { return tlsconf.VersionName(c.Version) },
		segment: func(c *Case) string { return "tls" + tlsconf.VersionName(c.Version) },
		client:  func(c *Case, o *tlsconf.ClientOptions) { o.Version = c.Version }},
	// Through the built-in proxy a case resumes on both legs or on
	// neither: the proxy keeps its origin sessions only in resume cases.
	{param: "resume", field: "Resume", modes: handshakeOnly, rank: 7, proxy: true,
		used:   func(m *matrix) bool { return len(m.resumeRatios) == 0 },
		relay:  func(c *Case, o *proxySettings) { o.OriginSessions = c.Resume },
		values: func(m *matrix) []any { return anys(m.resume) },
		set:    func(c *Case, v any) { c.Resume = v.(bool) },
		label:  func(c *Case) string { return onOff(c.Resume) },
		segment: func(c *Case) string {
			if c.Resume {
				return "resume"
			}
			return "full"
		}},
	// Shares of resumed connections take the resumption axis's place
	// and its segment: 0 and 1 are named as full and resume cases are.
	{param: "resume_ratio", field: "ResumeRatios", modes: handshakeOnly, rank: 7, proxy: true,
		used:   func(m *matrix) bool { return len(m.resumeRatios) > 0 },
		relay:  func(c *Case, o *proxySettings) { o.OriginSessions = c.Resume },
		values: func(m *matrix) []any { return anys(m.resumeRatios) },
		set: func(c *Case, v any) {
			f := v.(float64)
			c.ResumeRatio, c.Resume = &f, f > 0
		},
		label:   func(c *Case) string { return RateName(*c.ResumeRatio) },
		segment: func(c *Case) string { return MixName(*c.ResumeRatio) },
		record:  func(c *Case, r *results.Record) { r.ResumeRatio = results.Float(*c.ResumeRatio) },
		// The built-in server measures its handshakes' CPU by kind in a
		// mix only: it costs a few system calls per read.
		server:    true,
		serverKey: func(c *Case) string { return onOff(isMix(c)) },
		serve:     func(c *Case, o *server.Options) { o.MeasureHandshakeCPU = isMix(c) }},
	{param: "mutual", field: "Mutual", modes: both, rank: 0,
		values: func(m *matrix) []any { return []any{m.mutual} },
		set:    func(c *Case, v any) { c.Mutual = v.(bool) },
		label:  func(c *Case) string { return onOff(c.Mutual) },
		segment: func(c *Case) string {
			if c.Mutual {
				return "mutual"
			}
			return ""
		}},
	{param: "key_type", field: "KeyTypes", modes: both, rank: 1, server: true,
		values: func(m *matrix) []any { return anys(m.keys) },
		set:    func(c *Case, v any) { c.KeyType = v.(pki.KeyType) },
		label:  func(c *Case) string { return string(c.KeyType) },
		// With several key types every case names its own, the default
		// one included; alone, the default is left out, so the default
		// matrix keeps its names. Throughput names never had it.
		segment: func(c *Case) string {
			if c.Mode == ModeThroughput || c.KeyType == "" || c.KeyType == DefaultKeyType && len(c.m.keys) == 1 {
				return ""
			}
			return string(c.KeyType)
		},
		record: func(c *Case, r *results.Record) { r.KeyType = string(c.KeyType) }},
	{param: "key_cache", field: "KeyCache", modes: handshakeOnly, rank: 2, server: true,
		values: func(m *matrix) []any { return anys(m.keyCache) },
		set:    func(c *Case, v any) { c.KeyCache = v.(bool) },
		label:  func(c *Case) string { return onOff(c.KeyCache) },
		segment: func(c *Case) string {
			if c.m.nameKeyCache {
				return "keycache-" + onOff(c.KeyCache)
			}
			return ""
		},
		record: func(c *Case, r *results.Record) {
			if c.m.nameKeyCache {
				r.KeyCache = results.Bool(c.KeyCache)
			}
		},
		serve: func(c *Case, o *server.Options) { o.DisableKeyCache = !c.KeyCache }},
	{param: "mint_cache", field: "MintCache", modes: handshakeOnly, rank: 2, proxy: true,
		used:    func(m *matrix) bool { return len(m.mintCache) > 0 },
		values:  func(m *matrix) []any { return anys(m.mintCache) },
		set:     func(c *Case, v any) { c.MintCache = v.(bool) },
		label:   func(c *Case) string { return onOff(c.MintCache) },
		segment: func(c *Case) string { return "mintcache-" + onOff(c.MintCache) },
		record:  func(c *Case, r *results.Record) { r.MintCache = results.Bool(c.MintCache) },
		relay:   func(c *Case, o *proxySettings) { o.MintCache = c.MintCache }},
	{param: "group", field: "Groups", modes: handshakeOnly, rank: 5,
		values: func(m *matrix) []any { return anys(m.groups) },
		set:    func(c *Case, v any) { c.Group = v.(tls.CurveID) },
		label:  func(c *Case) string { return orDefaultName(c.Group != 0, tlsconf.GroupName(c.Group)) },
		segment: func(c *Case) string {
			if c.Group == 0 {
				return ""
			}
			return tlsconf.GroupName(c.Group)
		},
		client: func(c *Case, o *tlsconf.ClientOptions) {
			if c.Group != 0 {
				o.Groups = []tls.CurveID{c.Group}
			}
		}},
	{param: "cipher", field: "Ciphers", modes: both, rank: 6,
		values:  func(m *matrix) []any { return anys(m.ciphers) },
		set:     func(c *Case, v any) { c.Cipher = v.(string) },
		label:   func(c *Case) string { return orDefaultName(c.Cipher != "", c.Cipher) },
		segment: func(c *Case) string { return c.Cipher },
		client:  func(c *Case, o *tlsconf.ClientOptions) { o.Cipher = c.Cipher }},
	{param: "buffer_bytes", field: "Buffers", modes: throughputOnly, rank: 8, proxy: true,
		values:  func(m *matrix) []any { return anys(m.buffers) },
		set:     func(c *Case, v any) { c.Buffer = v.(int) },
		label:   func(c *Case) string { return strconv.Itoa(c.Buffer) },
		segment: func(c *Case) string { return SizeName(c.Buffer) },
		relay:   func(c *Case, o *proxySettings) { o.Buffer = c.Buffer }},
	{param: "direction", field: "Directions", modes: throughputOnly, rank: 7,
		values:  func(m *matrix) []any { return anys(m.directions) },
		set:     func(c *Case, v any) { c.Direction = v.(string) },
		label:   func(c *Case) string { return c.Direction },
		segment: func(c *Case) string { return c.Direction }},
	{param: "request", field: "Request", modes: throughputOnly, rank: 0,
		used:   func(m *matrix) bool { return m.request != "" },
		values: func(m *matrix) []any { return []any{m.request} },
		set:    func(c *Case, v any) { c.Request = v.(string) },
		label:  func(c *Case) string { return c.Request },
		segment: func(c *Case) string {
			if c.Request == RequestHTTP {
				return "http"
			}
			return ""
		},
		record: func(c *Case, r *results.Record) {
			if c.Request == RequestHTTP {
				r.Request = c.Request
			}
		}},
	{param: "source", field: "Source", modes: throughputOnly, rank: 0,
		values: func(m *matrix) []any { return []any{m.file} },
		set:    func(c *Case, v any) { c.File = v.(bool) },
		label: func(c *Case) string {
			if c.File {
				return "file"
			}
			return "generated"
		},
		segment: func(c *Case) string {
			if c.File {
				return "file"
			}
			return ""
		}},
	{param: "transport", field: "Transports", modes: handshakeOnly, rank: 3, server: true,
		values: func(m *matrix) []any { return anys(m.transports) },
		set:    func(c *Case, v any) { c.Transport = v.(string) },
		label:  func(c *Case) string { return c.Transport },
		// tcp4 keeps the names of the days of one TCP transport.
		segment: func(c *Case) string {
			if c.Transport == TransportTCP4 {
				return ""
			}
			return c.Transport
		},
		record: func(c *Case, r *results.Record) { r.Transport = recordedTransport(c.Transport) },
		serve: func(c *Case, o *server.Options) {
			if c.Transport == TransportTCP6 && (o.Listen == "" || o.Listen == defaultListen) {
				o.Listen = defaultListen6
			}
			// A QUIC server listens on TCP too (its control of the
			// child and the dial that detects its death).
			o.QUIC = c.Transport == TransportQUIC
		}},
	// Early data is the client's choice (the server's policy is one
	// setting of the run, not an axis): the runner gives it to the QUIC
	// dialer (handshakeCase).
	{param: "early_data", field: "EarlyData", modes: handshakeOnly, rank: 8,
		used:   func(m *matrix) bool { return len(m.earlyData) > 0 },
		values: func(m *matrix) []any { return anys(m.earlyData) },
		set:    func(c *Case, v any) { c.EarlyData = v.(bool) },
		label:  func(c *Case) string { return onOff(c.EarlyData) },
		segment: func(c *Case) string {
			if c.EarlyData {
				return "0rtt"
			}
			return ""
		},
		record: func(c *Case, r *results.Record) { r.EarlyData = results.Bool(c.EarlyData) }},
	{param: "read_fill", field: "ReadFill", modes: throughputOnly, rank: 9, proxy: true,
		used:    func(m *matrix) bool { return len(m.readFill) > 0 },
		values:  func(m *matrix) []any { return anys(m.readFill) },
		set:     func(c *Case, v any) { c.ReadFill = v.(bool) },
		label:   func(c *Case) string { return onOff(c.ReadFill) },
		segment: func(c *Case) string { return "fill-" + onOff(c.ReadFill) },
		record:  func(c *Case, r *results.Record) { r.ReadFill = results.Bool(c.ReadFill) },
		relay:   func(c *Case, o *proxySettings) { o.ReadFill = c.ReadFill }},
	// With a proxy, kTLS is the proxy's, on both its legs: client and
	// origin run user-space TLS (see tpRun.endKTLS).
	{param: "ktls", field: "KTLS", modes: throughputOnly, rank: 10, proxy: true,
		values:  func(m *matrix) []any { return anys(m.ktls) },
		set:     func(c *Case, v any) { c.KTLS = v.(ktls.Mode) },
		label:   func(c *Case) string { return c.KTLS.String() },
		segment: func(c *Case) string { return "ktls-" + c.KTLS.String() },
		relay:   func(c *Case, o *proxySettings) { o.KTLS = c.KTLS.String() }},
	// Open-loop cases name their shape in params only: the rate's
	// segment ends the name as the concurrency's does.
	{param: "arrival", field: "Arrival", modes: handshakeOnly, rank: 9,
		used:    func(m *matrix) bool { return len(m.rates) > 0 },
		values:  func(m *matrix) []any { return []any{m.arrival} },
		set:     func(c *Case, v any) { c.Arrival = v.(string) },
		label:   func(c *Case) string { return c.Arrival },
		segment: func(c *Case) string { return "" }},
	{param: "rate", field: "Rates", modes: handshakeOnly, rank: 9,
		used:    func(m *matrix) bool { return len(m.rates) > 0 },
		values:  func(m *matrix) []any { return anys(m.rates) },
		set:     func(c *Case, v any) { c.Rate = v.(float64) },
		label:   func(c *Case) string { return RateName(c.Rate) },
		segment: func(c *Case) string { return "r" + RateName(c.Rate) }},
	{param: "concurrency", field: "Concurrency", modes: both, rank: 9,
		used:    func(m *matrix) bool { return len(m.rates) == 0 || m.mode != ModeHandshake },
		values:  func(m *matrix) []any { return anys(m.concurrency) },
		set:     func(c *Case, v any) { c.Concurrency = v.(int) },
		label:   func(c *Case) string { return strconv.Itoa(c.Concurrency) },
		segment: func(c *Case) string { return fmt.Sprintf("c%d", c.Concurrency) }},
}

var (
	both           = []string{ModeHandshake, ModeThroughput}
	handshakeOnly  = []string{ModeHandshake}
	throughputOnly = []string{ModeThroughput}
)

// notRunnableTLS13AES256 is the note of a TLS 1.3 AES-256-GCM case.
const notRunnableTLS13AES256 = "not runnable: TLS 1.3 with AES-256-GCM cannot be negotiated by tlsbench's client and its built-in server: neither prefers it, and in TLS 1.3 neither can be told to; not measured, no other cipher measured in its place"

// notRunnableHTTPBoth is the note of a throughput case over HTTP that
// moves data both ways at once.
const notRunnableHTTPBoth = "not runnable: over HTTP each request moves data one way (GET downloads, POST uploads), so direction both cannot be measured; use direction download or upload, or the bulk wire without a proxy given by URL"

// notRunnableQUICTLS12 is the note of a TLS 1.2 case over QUIC.
const notRunnableQUICTLS12 = "not runnable: QUIC carries TLS 1.3 only (RFC 9001); not measured"

// notRunnableEarlyFull is the note of a full-handshake case with early
// data on.
const notRunnableEarlyFull = "not runnable: early data is sent when resuming a session, and a full handshake has none; not measured"

// curveNotOffered says why a TLS 1.2 handshake case with an ECDSA server
// certificate cannot run when its one group is not the certificate's
// curve: a TLS 1.2 client's supported groups also name the curves it
// accepts in ECDSA signatures (RFC 8422, section 5.1), so the server has
// no certificate to offer and every handshake fails. Empty when the case
// can run.
func curveNotOffered(c *Case) string {
	if c.Mode != ModeHandshake || c.Version != tls.VersionTLS12 || c.Group == 0 {
		return ""
	}
	var need tls.CurveID
	switch c.KeyType {
	case pki.ECDSAP256:
		need = tls.CurveP256
	case pki.ECDSAP384:
		need = tls.CurveP384
	default:
		return ""
	}
	if c.Group == need {
		return ""
	}
	return fmt.Sprintf("not runnable: a TLS 1.2 server with an %s certificate needs the client to offer %s among its groups (RFC 8422), and this case offers only %s; not measured: add %s to the groups, or use an RSA or Ed25519 key",
		c.KeyType, tlsconf.GroupName(need), tlsconf.GroupName(c.Group), tlsconf.GroupName(need))
}

// orDefaultName is name, or "default" for a setting left to the TLS
// stack.
func orDefaultName(set bool, name string) string {
	if set {
		return name
	}
	return "default"
}

// axesOf lists the axes of the matrix's mode that it uses, in table
// (name) order.
func (m *matrix) axesOf() []axis {
	var out []axis
	for _, a := range axes {
		if slices.Contains(a.modes, m.mode) && (a.used == nil || a.used(m)) {
			out = append(out, a)
		}
	}
	return out
}

// cases expands the matrix: the cross product of the mode's axes, the
// lowest rank outermost.
func (m *matrix) cases() []Case {
	m.axes = m.axesOf()
	run := slices.Clone(m.axes)
	slices.SortStableFunc(run, func(a, b axis) int { return a.rank - b.rank })
	out := []Case{{Mode: m.mode, m: m}}
	for _, a := range run {
		vals := a.values(m)
		next := make([]Case, 0, len(out)*len(vals))
		for _, c := range out {
			for _, v := range vals {
				a.set(&c, v)
				next = append(next, c)
			}
		}
		out = next
	}
	for i := range out {
		c := &out[i]
		c.Name, c.Params = c.name(), c.params()
		if c.Cipher != "" && tlsconf.CipherRunnable(c.Version, c.Cipher) != nil {
			c.NotRunnable, c.notRunnableBy = notRunnableTLS13AES256, "Versions/Ciphers"
		} else if why := curveNotOffered(c); why != "" {
			c.NotRunnable, c.notRunnableBy = why, "Versions/Groups/KeyTypes"
		} else if c.Request == RequestHTTP && c.Direction == loadgen.DirectionBoth {
			c.NotRunnable, c.notRunnableBy = notRunnableHTTPBoth, "Request/Directions"
		} else if c.Transport == TransportQUIC && c.Version != tls.VersionTLS13 {
			c.NotRunnable, c.notRunnableBy = notRunnableQUICTLS12, "Versions/Transports"
		} else if c.EarlyData && !c.Resume {
			c.NotRunnable, c.notRunnableBy = notRunnableEarlyFull, "EarlyData/Resume"
		}
	}
	return out
}

// name is the case's stable name: its mode, then the segment of every
// axis in table order, e.g. handshake/tls1.3/resume/c64 or
// throughput/tls1.3/aes128gcm/16k/download/ktls-on/c1. Axes at their
// default leave theirs out, so names stay as they were before an axis
// existed. Names are unique within a plan: Validate refuses an axis that
// lists a value twice.
func (c *Case) name() string {
	parts := make([]string, 1, len(c.m.axes)+1)
	parts[0] = c.Mode
	for _, a := range c.m.axes {
		if s := a.segment(c); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "/")
}

// params are the case's record parameters: every axis of its mode. An
// external target's key type is not the run's to choose: left out.
func (c *Case) params() map[string]string {
	p := make(map[string]string, len(c.m.axes))
	for _, a := range c.m.axes {
		if a.param == "key_type" && c.KeyType == "" {
			continue
		}
		p[a.param] = a.label(c)
	}
	return p
}

// sameServer reports whether two cases can share one built-in server:
// they agree on every axis that configures it.
func sameServer(a, b *Case) bool {
	for _, ax := range a.m.axes {
		key := ax.label
		if ax.serverKey != nil {
			key = ax.serverKey
		}
		if ax.server && key(a) != key(b) {
			return false
		}
	}
	return true
}

// isMix reports whether c mixes full and resumed handshakes.
func isMix(c *Case) bool {
	return c.ResumeRatio != nil && *c.ResumeRatio > 0 && *c.ResumeRatio < 1
}

// sameProxy reports whether two cases can share one built-in proxy: they
// agree on every axis that configures it.
func sameProxy(a, b *Case) bool {
	for _, ax := range a.m.axes {
		if ax.proxy && ax.label(a) != ax.label(b) {
			return false
		}
	}
	return true
}

// configureProxy applies the case's axes to the built-in proxy.
func (c *Case) configureProxy(o *proxySettings) {
	for _, a := range c.m.axes {
		if a.relay != nil {
			a.relay(c, o)
		}
	}
}

// configureClient applies the case's axes to the client options.
func (c *Case) configureClient(o *tlsconf.ClientOptions) {
	for _, a := range c.m.axes {
		if a.client != nil {
			a.client(c, o)
		}
	}
}

// configureServer applies the case's axes to the built-in server.
func (c *Case) configureServer(o *server.Options) {
	for _, a := range c.m.axes {
		if a.serve != nil {
			a.serve(c, o)
		}
	}
}

// record fills the record's parameters and the typed fields the axes
// own.
func (c *Case) record(r *results.Record) {
	for _, a := range c.m.axes {
		if a.record != nil {
			a.record(c, r)
		}
	}
	r.Params = c.Params
}

// duplicates refuses an axis that lists a value twice: its cases would
// run twice under one name.
func (m *matrix) duplicates() error {
	for _, a := range m.axesOf() {
		seen := map[string]bool{}
		for _, v := range a.values(m) {
			c := Case{Mode: m.mode, m: m}
			a.set(&c, v)
			l := a.label(&c)
			if seen[l] {
				return field.Errorf(a.field, nil, "%s is given twice", l)
			}
			seen[l] = true
		}
	}
	return nil
}
