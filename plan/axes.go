package plan

import (
	"crypto/tls"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/tlsconf"
)

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
	used   func(m *Matrix) bool
	values func(m *Matrix) []any
	set    func(c *Case, v any)
	// label writes the case's value as the flag takes it (params, errors).
	label func(c *Case) string
	// segment is the case's name segment; "" leaves it out (a default).
	segment func(c *Case) string
	// record sets the record's typed field (nil: loadgen sets it).
	record func(c *Case, r *results.Record)
	client func(c *Case, o *tlsconf.ClientOptions)
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

// OnOff writes a switch as flags take it and params show it.
func OnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// axes is the table. Its order is the order of the segments in a case
// name; rank orders the run.
var axes = []axis{
	{param: "proxy", field: "Proxy.URL", modes: both, rank: 0,
		used:   func(m *Matrix) bool { return m.Proxy != "" },
		values: func(m *Matrix) []any { return []any{m.Proxy} },
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
		values:  func(m *Matrix) []any { return anys(m.Versions) },
		set:     func(c *Case, v any) { c.Version = v.(uint16) },
		label:   func(c *Case) string { return tlsconf.VersionName(c.Version) },
		segment: func(c *Case) string { return "tls" + tlsconf.VersionName(c.Version) },
		client:  func(c *Case, o *tlsconf.ClientOptions) { o.Version = c.Version }},
	// Through the built-in proxy a case resumes on both legs or on
	// neither: the proxy keeps its origin sessions only in resume cases.
	{param: "resume", field: "Resume", modes: handshakeOnly, rank: 7, proxy: true,
		used:   func(m *Matrix) bool { return len(m.ResumeRatios) == 0 },
		values: func(m *Matrix) []any { return anys(m.Resume) },
		set:    func(c *Case, v any) { c.Resume = v.(bool) },
		label:  func(c *Case) string { return OnOff(c.Resume) },
		segment: func(c *Case) string {
			if c.Resume {
				return "resume"
			}
			return "full"
		}},
	// Shares of resumed connections take the resumption axis's place
	// and its segment: 0 and 1 are named as full and resume cases are.
	{param: "resume_ratio", field: "ResumeRatios", modes: handshakeOnly, rank: 7, proxy: true,
		used:   func(m *Matrix) bool { return len(m.ResumeRatios) > 0 },
		values: func(m *Matrix) []any { return anys(m.ResumeRatios) },
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
		serverKey: func(c *Case) string { return OnOff(IsMix(c)) }},
	{param: "mutual", field: "Mutual", modes: both, rank: 0,
		values: func(m *Matrix) []any { return []any{m.Mutual} },
		set:    func(c *Case, v any) { c.Mutual = v.(bool) },
		label:  func(c *Case) string { return OnOff(c.Mutual) },
		segment: func(c *Case) string {
			if c.Mutual {
				return "mutual"
			}
			return ""
		}},
	{param: "key_type", field: "KeyTypes", modes: both, rank: 1, server: true,
		values: func(m *Matrix) []any { return anys(m.Keys) },
		set:    func(c *Case, v any) { c.KeyType = v.(pki.KeyType) },
		label:  func(c *Case) string { return string(c.KeyType) },
		// With several key types every case names its own, the default
		// one included; alone, the default is left out, so the default
		// matrix keeps its names. Throughput names never had it.
		segment: func(c *Case) string {
			if c.Mode == ModeThroughput || c.KeyType == "" || c.KeyType == DefaultKeyType && len(c.m.Keys) == 1 {
				return ""
			}
			return string(c.KeyType)
		},
		record: func(c *Case, r *results.Record) { r.KeyType = string(c.KeyType) }},
	{param: "key_cache", field: "KeyCache", modes: handshakeOnly, rank: 2, server: true,
		values: func(m *Matrix) []any { return anys(m.KeyCache) },
		set:    func(c *Case, v any) { c.KeyCache = v.(bool) },
		label:  func(c *Case) string { return OnOff(c.KeyCache) },
		segment: func(c *Case) string {
			if c.m.NameKeyCache {
				return "keycache-" + OnOff(c.KeyCache)
			}
			return ""
		},
		record: func(c *Case, r *results.Record) {
			if c.m.NameKeyCache {
				r.KeyCache = results.Bool(c.KeyCache)
			}
		}},
	{param: "mint_cache", field: "MintCache", modes: handshakeOnly, rank: 2, proxy: true,
		used:    func(m *Matrix) bool { return len(m.MintCache) > 0 },
		values:  func(m *Matrix) []any { return anys(m.MintCache) },
		set:     func(c *Case, v any) { c.MintCache = v.(bool) },
		label:   func(c *Case) string { return OnOff(c.MintCache) },
		segment: func(c *Case) string { return "mintcache-" + OnOff(c.MintCache) },
		record:  func(c *Case, r *results.Record) { r.MintCache = results.Bool(c.MintCache) }},
	{param: "group", field: "Groups", modes: handshakeOnly, rank: 5,
		values: func(m *Matrix) []any { return anys(m.Groups) },
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
		values:  func(m *Matrix) []any { return anys(m.Ciphers) },
		set:     func(c *Case, v any) { c.Cipher = v.(string) },
		label:   func(c *Case) string { return orDefaultName(c.Cipher != "", c.Cipher) },
		segment: func(c *Case) string { return c.Cipher },
		client:  func(c *Case, o *tlsconf.ClientOptions) { o.Cipher = c.Cipher }},
	{param: "buffer_bytes", field: "Buffers", modes: throughputOnly, rank: 8, proxy: true,
		values:  func(m *Matrix) []any { return anys(m.Buffers) },
		set:     func(c *Case, v any) { c.Buffer = v.(int) },
		label:   func(c *Case) string { return strconv.Itoa(c.Buffer) },
		segment: func(c *Case) string { return SizeName(c.Buffer) }},
	{param: "direction", field: "Directions", modes: throughputOnly, rank: 7,
		values:  func(m *Matrix) []any { return anys(m.Directions) },
		set:     func(c *Case, v any) { c.Direction = v.(string) },
		label:   func(c *Case) string { return c.Direction },
		segment: func(c *Case) string { return c.Direction }},
	{param: "request", field: "Request", modes: throughputOnly, rank: 0,
		used:   func(m *Matrix) bool { return m.Request != "" },
		values: func(m *Matrix) []any { return []any{m.Request} },
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
		values: func(m *Matrix) []any { return []any{m.File} },
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
		values: func(m *Matrix) []any { return anys(m.Transports) },
		set:    func(c *Case, v any) { c.Transport = v.(string) },
		label:  func(c *Case) string { return c.Transport },
		// tcp4 keeps the names of the days of one TCP transport.
		segment: func(c *Case) string {
			if c.Transport == TransportTCP4 {
				return ""
			}
			return c.Transport
		},
		record: func(c *Case, r *results.Record) { r.Transport = recordedTransport(c.Transport) }},
	{param: "read_fill", field: "ReadFill", modes: throughputOnly, rank: 9, proxy: true,
		used:    func(m *Matrix) bool { return len(m.ReadFill) > 0 },
		values:  func(m *Matrix) []any { return anys(m.ReadFill) },
		set:     func(c *Case, v any) { c.ReadFill = v.(bool) },
		label:   func(c *Case) string { return OnOff(c.ReadFill) },
		segment: func(c *Case) string { return "fill-" + OnOff(c.ReadFill) },
		record:  func(c *Case, r *results.Record) { r.ReadFill = results.Bool(c.ReadFill) }},
	// With a proxy, kTLS is the proxy's, on both its legs: client and
	// origin run user-space TLS (see tpRun.endKTLS).
	{param: "ktls", field: "KTLS", modes: throughputOnly, rank: 10, proxy: true,
		values:  func(m *Matrix) []any { return anys(m.KTLS) },
		set:     func(c *Case, v any) { c.KTLS = v.(ktls.Mode) },
		label:   func(c *Case) string { return c.KTLS.String() },
		segment: func(c *Case) string { return "ktls-" + c.KTLS.String() }},
	// Open-loop cases name their shape in params only: the rate's
	// segment ends the name as the concurrency's does.
	{param: "arrival", field: "Arrival", modes: handshakeOnly, rank: 9,
		used:    func(m *Matrix) bool { return len(m.Rates) > 0 },
		values:  func(m *Matrix) []any { return []any{m.Arrival} },
		set:     func(c *Case, v any) { c.Arrival = v.(string) },
		label:   func(c *Case) string { return c.Arrival },
		segment: func(c *Case) string { return "" }},
	{param: "rate", field: "Rates", modes: handshakeOnly, rank: 9,
		used:    func(m *Matrix) bool { return len(m.Rates) > 0 },
		values:  func(m *Matrix) []any { return anys(m.Rates) },
		set:     func(c *Case, v any) { c.Rate = v.(float64) },
		label:   func(c *Case) string { return RateName(c.Rate) },
		segment: func(c *Case) string { return "r" + RateName(c.Rate) }},
	{param: "concurrency", field: "Concurrency", modes: both, rank: 9,
		used:    func(m *Matrix) bool { return len(m.Rates) == 0 || m.Mode != ModeHandshake },
		values:  func(m *Matrix) []any { return anys(m.Concurrency) },
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
func (m *Matrix) axesOf() []axis {
	var out []axis
	for _, a := range allAxes() {
		if slices.Contains(a.modes, m.Mode) && (a.used == nil || a.used(m)) {
			out = append(out, a)
		}
	}
	return out
}

// Cases expands the matrix: the cross product of the mode's axes, the
// lowest rank outermost.
func (m *Matrix) Cases() []Case {
	m.axes = m.axesOf()
	run := slices.Clone(m.axes)
	slices.SortStableFunc(run, func(a, b axis) int { return a.rank - b.rank })
	out := []Case{{Mode: m.Mode, m: m}}
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
		} else if c.Request == RequestHTTP && c.Direction == DirectionBoth {
			c.NotRunnable, c.notRunnableBy = notRunnableHTTPBoth, "Request/Directions"
		} else if c.Transport == TransportQUIC && c.Version != tls.VersionTLS13 {
			c.NotRunnable, c.notRunnableBy = notRunnableQUICTLS12, "Versions/Transports"
		} else if why, by := c.tableNotRunnable(); why != "" {
			c.NotRunnable, c.notRunnableBy = why, by
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

// SameServer reports whether two cases can share one built-in server:
// they agree on every axis that configures it.
func SameServer(a, b *Case) bool {
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

// IsMix reports whether c mixes full and resumed handshakes.
func IsMix(c *Case) bool {
	return c.ResumeRatio != nil && *c.ResumeRatio > 0 && *c.ResumeRatio < 1
}

// SameProxy reports whether two cases can share one built-in proxy: they
// agree on every axis that configures it.
func SameProxy(a, b *Case) bool {
	for _, ax := range a.m.axes {
		if ax.proxy && ax.label(a) != ax.label(b) {
			return false
		}
	}
	return true
}

// ConfigureClient applies the case's axes to the client options.
func (c *Case) ConfigureClient(o *tlsconf.ClientOptions) {
	for _, a := range c.m.axes {
		if a.client != nil {
			a.client(c, o)
		}
	}
}

// Record fills the record's parameters and the typed fields the axes
// own.
func (c *Case) Record(r *results.Record) {
	for _, a := range c.m.axes {
		if a.record != nil {
			a.record(c, r)
		}
	}
	r.Params = c.Params
}

// Duplicates refuses an axis that lists a value twice: its cases would
// run twice under one name.
func (m *Matrix) Duplicates() error {
	for _, a := range m.axesOf() {
		seen := map[string]bool{}
		for _, v := range a.values(m) {
			c := Case{Mode: m.Mode, m: m}
			a.set(&c, v)
			l := a.label(&c)
			if seen[l] {
				return Errorf(OfField(a.field), nil, "%s is given twice", l)
			}
			seen[l] = true
		}
	}
	return nil
}

// NotRunnableBy names the plan fields whose values make the case not
// runnable (joined by "/"), for the error when no case of a plan can
// run; "" for a runnable case.
func (c *Case) NotRunnableBy() string { return c.notRunnableBy }

// NotRunnableError is the error when no case of a plan can run, this
// case being the first: it names the settings whose values make it so.
func (c *Case) NotRunnableError() *Error {
	by := ofFields(strings.Split(c.notRunnableBy, "/"))
	if len(by) == 0 {
		return &Error{format: "no case can run: %s", args: []any{c.NotRunnable}}
	}
	return &Error{Setting: by[0], Also: by[1:], format: "no case can run: %s", args: []any{c.NotRunnable}}
}

// Uses reports whether the case's plan uses the axis of the record
// parameter param: whether the hooks of that axis apply to it.
func (c *Case) Uses(param string) bool {
	return slices.ContainsFunc(c.m.axes, func(a axis) bool { return a.param == param })
}

// AxisParams are the record parameters of every axis of the table, in
// table order: the keys of the runner's hooks.
func AxisParams() []string {
	all := allAxes()
	out := make([]string, len(all))
	for i, a := range all {
		out[i] = a.param
	}
	return out
}
