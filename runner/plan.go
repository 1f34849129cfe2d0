package runner

import (
	"cmp"
	"crypto/tls"
	"net"
	"slices"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// The built-in server's default listen addresses: loopback, IPv4 or IPv6.
const (
	defaultListen  = "127.0.0.1:0"
	defaultListen6 = "[::1]:0"
)

// Plan is what a run measures. The matrix is the cross product of
// Versions x Resume x Concurrency x KeyTypes x Groups x Ciphers x
// Transports x KeyCache (see the axis table, axes.go).
type Plan struct {
	Versions    []uint16
	Resume      []bool
	Concurrency []int
	KeyTypes    []pki.KeyType
	// Groups are the key-exchange groups, one case each; a zero entry
	// (or an empty list) offers Go's default groups.
	Groups []tls.CurveID
	// Ciphers, one case each (tlsconf.Cipher*); empty offers Go's
	// defaults.
	Ciphers    []string
	Transports []string // TransportTCP4 (default), TransportTCP6, TransportMemory, TransportQUIC
	// EarlyDataPolicy is the built-in server's answer to early data
	// (server.EarlyData*; default accept).
	EarlyDataPolicy string
	// Axes are the values of the settings table's axes (plan.Setting's
	// Axis) the plan gives, by their record parameter: e.g.
	// "early_data": {false, true}, with true the clients sending their
	// request as TLS 1.3 early data (0-RTT) when they resume (QUIC cases
	// only).
	Axes plan.Values

	// Mutual makes the server require client certificates; the clients
	// rotate among ClientIdentities certificates (default 1).
	Mutual           bool
	ClientIdentities int
	// SessionPool is how many sessions the client keeps per identity
	// scope (default: the case's concurrency, so every handshake of a
	// wave finds one); TicketReuse says whether one may be offered twice.
	SessionPool int
	TicketReuse tlsconf.TicketReuse

	// Server is the built-in server's configuration (session store,
	// ticket keys, revocation list...). Without Server.Identities the
	// runner generates one identity per KeyTypes entry; with them, the
	// clients verify the server with ServerCA (default: ca.pem beside the
	// first identity file, the tlsbench pki init layout).
	Server   server.Options
	ServerCA string
	// KeyCache lists the key manager's cache settings to measure, one
	// server each (default: on).
	KeyCache []bool

	// Target, when set, is an external server (host:port) to measure
	// instead of the built-in one.
	Target Target
	// Proxy, when set, is the proxy the client connects through to the
	// built-in server or the target. MintCache lists the built-in
	// proxy's certificate cache settings to measure, one case each.
	Proxy     Proxy
	MintCache []bool

	// Versus, when set, measures every case on a second side in the same
	// run, interleaved (see Versus).
	Versus Versus

	// Rates, when set, make the handshake cases open-loop, one case
	// per rate (starts per second) in place of Concurrency, which must
	// then be empty: connections start on a schedule of Arrival's shape
	// (results.ArrivalConstant, the default, or ArrivalPoisson), at most
	// MaxInflight open at once (default measure.DefaultMaxInflight).
	// Each iteration is a window of Handshakes connections, or of
	// Duration/Iterations (see measure.HandshakeCase).
	Rates       []float64
	Arrival     string
	MaxInflight int
	// ResumeRatios, when set, replace Resume (which must then be
	// empty): one case per share of each iteration's connections that
	// offer a session, 0 (all full) to 1 (all resumed), between them a
	// mix held to its share (see measure.HandshakeCase.ResumeRatio).
	ResumeRatios []float64
	// Duration, when set, is each case's measured time, split into
	// Iterations windows (closed-loop cases run waves until each ends).
	Duration time.Duration
	// FindRate, when set, searches each open-loop case for the highest
	// rate that meets a latency goal, from the plan's one rate (see
	// FindRate).
	FindRate *FindRate

	// Shard, when its Count is set, makes the run one shard of a sharded
	// run: it makes its share of each case's load (Shard.Index of
	// Shard.Count) against Target, each case beginning at its common
	// start (see CaseSlot). It needs Target, Duration and StartAt.
	Shard Shard
	// StartAt, when set, is when the first case begins (its warm-up,
	// once its sessions are primed); in a sharded run, later cases begin
	// one CaseSlot after another from it.
	StartAt time.Time

	// Per case.
	Handshakes int
	Iterations int
	Warmup     int
	CaseTime   time.Duration // measured time limit per case (0: none); per side in an interleaved run
	// IterationsGiven says Iterations were asked for: every case
	// measures all of them, and CaseTime bounds only the iterations
	// past them (towards TargetError).
	IterationsGiven bool
	// TargetError, when above 0, keeps a case measuring past Iterations
	// (then the minimum) until its 99.9% confidence interval's half-width
	// is at most this share of the mean (of the ratio of side b to side a
	// in an interleaved run), within CaseTime (see
	// measure.HandshakeCase.TargetError).
	TargetError float64
	// MinResumption is the share of handshakes a resume case must resume
	// in its warm-up and in every measured iteration (0: no check);
	// MaxErrorRate the share of connections that may fail (0: none, 1:
	// any). See measure.HandshakeCase.
	MinResumption float64
	MaxErrorRate  float64
	ConnTimeout   time.Duration
	// Words is how the user knows the cases' settings and the advice for
	// their failures (a CLI gives its flags); loadgen's neutral words
	// without it.
	Words client.Words

	// Executable runs the child server (default: this program re-run,
	// see RunChildIfAsked); its arguments are ChildArgs (default
	// ["serve"]), and the built-in proxy's ProxyArgs (default ["proxy"]).
	Executable string
	ChildArgs  []string
	ProxyArgs  []string
	ChildEnv   []string
	// Instructions runs the child servers under callgrind (see measure's server_instructions).
	Instructions bool

	// Profile, when its Dir is set, writes profiles of each case's
	// measured iterations (see Profiles).
	Profile Profiles

	// Env is recorded in every result (default results.CurrentEnv()).
	Env *results.Env
	// Progress receives every finished iteration, and Notice one-line
	// remarks for the user (a server started, a case skipped).
	Progress func(CaseProgress)
	Notice   func(string)
	// Log receives the lines a user should read whether or not progress
	// is shown: which request a target was found to answer (default:
	// Notice).
	Log func(string)

	hooks *planHooks // nil outside tests
}

// planHooks change what a run sees, for tests.
type planHooks struct {
	// serverObserver wraps the observer of every case's server (a
	// server whose counts are wrong).
	serverObserver func(measure.ServerObserver) measure.ServerObserver
}

// CaseProgress reports progress within a run.
type CaseProgress struct {
	Index, Total int // 1-based case index
	measure.Progress
}

// Target describes an external server.
type Target struct {
	Addr string // host:port; empty for the built-in server
	// ServerName is sent as SNI and verified (default: the host of Addr).
	ServerName string
	// CAFile verifies the server (default: the system roots).
	CAFile string
	// Insecure skips verification of the server's certificate.
	Insecure bool
	// CertFile and KeyFile are the client identity for mutual TLS.
	CertFile, KeyFile string
	// ServerPID, when set, is a local server process whose CPU time (with
	// its descendants', e.g. nginx workers) is sampled from /proc.
	ServerPID int
	// Command, when set, starts the server for the run: a shell command
	// that serves at Addr in the foreground, stopped after the run, its
	// process tree's CPU sampled as ServerPID's would be, and under
	// Plan.Instructions run under callgrind, its instructions counted.
	Command string
	// ALPN protocols offered, e.g. ["http/1.1"].
	ALPN []string
	// Request is the exchange after each handshake. The default with
	// an address, auto, asks the server once per run which request it
	// answers (client.DetectRequest); without one (the built-in
	// server) it is ping.
	Request client.Request
}

// request returns the exchange asked for the target.
func (t Target) request() client.Request {
	if t.Request != "" {
		return t.Request
	}
	if t.Addr != "" {
		return client.RequestAuto
	}
	return client.RequestPing
}

// quicRequest is the exchange over QUIC, where the protocol the server
// chooses by ALPN decides: auto is http when ALPN offers an HTTP
// protocol, ping (a tlsbench serve --quic) otherwise.
func (t Target) quicRequest() client.Request {
	if r := t.request(); r != client.RequestAuto {
		return r
	}
	for _, p := range t.ALPN {
		if p == "http/1.1" || p == "h2" || p == "h3" {
			return client.RequestHTTP
		}
	}
	return client.RequestPing
}

// Validate checks the plan before any work is done. Errors are
// *plan.Error holding the setting at fault; a reason refers to other
// settings as the settings themselves (plan.Settings).
func (p *Plan) Validate() error {
	for _, check := range []func() error{p.validateShard, p.validateOpen, p.validateFindRate, p.validateAxes, p.validateCounts, p.validateServer, p.validateVersus, p.validateProfile} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// validateProfile checks the profiles' directory (creating it): a rate
// search measures each case many times, which profiles of a case's
// measured iterations cannot tell apart.
func (p *Plan) validateProfile() error {
	if p.Profile.Dir != "" && p.FindRate != nil {
		return plan.Errorf(plan.Settings.Profile, p.Profile.Dir, "profiles are of measured cases and a rate search measures each case many times: leave out %s or %s", plan.Settings.FindRate, plan.Settings.Profile)
	}
	return p.Profile.Validate()
}

// validateAxes checks the values of the axes.
func (p *Plan) validateAxes() error {
	if len(p.Versions) == 0 {
		return plan.Errorf(plan.Settings.TLS, nil, "no TLS version given")
	}
	if err := p.matrix().Duplicates(); err != nil {
		return err
	}
	if err := plan.CheckResumption(p.Resume, p.ResumeRatios); err != nil {
		return err
	}
	if err := plan.CheckConcurrency(p.Concurrency, len(p.Rates) > 0); err != nil {
		return err
	}
	if err := plan.CheckTransports(p.Transports); err != nil {
		return err
	}
	// The table's axes check their own values (early data: QUIC).
	if err := p.matrix().Check(); err != nil {
		return err
	}
	if err := p.validateQUIC(); err != nil {
		return err
	}
	if err := plan.CheckCiphers(p.Ciphers); err != nil {
		return err
	}
	if err := plan.CheckGroups(p.Groups, p.Versions); err != nil {
		return err
	}
	if cases := p.Cases(); !slices.ContainsFunc(cases, func(c Case) bool { return c.NotRunnable == "" }) {
		return cases[0].NotRunnableError()
	}
	return nil
}

// validateCounts checks the per-case settings.
func (p *Plan) validateCounts() error {
	return plan.Counts{
		Handshakes: p.Handshakes, Iterations: p.Iterations, Warmup: p.Warmup,
		MaxConcurrency: slices.Max(append([]int{0}, p.Concurrency...)), Timed: p.Duration != 0,
		MinResumption: p.MinResumption, MaxErrorRate: p.MaxErrorRate, TargetError: p.TargetError,
		ClientIdentities: p.ClientIdentities, Mutual: p.Mutual, SessionPool: p.SessionPool,
	}.Check()
}

// validateServer checks the target, or the built-in server's settings.
func (p *Plan) validateServer() error {
	if err := p.Proxy.validate(nil, p.MintCache, p.Mutual, p.Transports); err != nil {
		return err
	}
	if p.Target.Addr != "" {
		if err := p.validateTarget(); err != nil {
			return err
		}
		sc := plan.Scope{Target: true}
		for _, s := range []struct {
			setting *plan.Setting
			given   bool
		}{{plan.Settings.Identity, len(p.Server.Identities) > 0}, {plan.Settings.KeyCache, len(p.KeyCache) > 0}} {
			if s.given {
				if err := sc.Check(s.setting); err != nil {
					return err
				}
			}
		}
	} else {
		if p.Target.Request == client.RequestAuto {
			return plan.Errorf(plan.Settings.Request, nil, "%s auto asks an external server which request it answers: give %s, or another %s", plan.Settings.Request, plan.Settings.Target, plan.Settings.Request)
		}
		so := p.Server
		if p.Mutual || so.Mutual {
			// The run makes the CA that issues its client identities.
			so.Mutual, so.ClientCA = true, "generated"
		}
		if err := so.Validate(); err != nil {
			return err
		}
		if slices.Contains(p.Transports, TransportTCP6) && !listensOnIPv6(so.Listen) {
			return plan.Errorf(plan.Settings.Listen, so.Listen, "%s tcp6 needs an IPv6 address to listen on, e.g. [::1]:0 (the default)", plan.Settings.Transport)
		}
	}
	return nil
}

// listensOnIPv6 reports whether the built-in server's listen address
// suits tcp6: the default (which tcp6 makes [::1]:0) or an IPv6 host.
func listensOnIPv6(listen string) bool {
	if listen == "" || listen == defaultListen {
		return true
	}
	host, _, err := net.SplitHostPort(listen)
	ip := net.ParseIP(host)
	return err == nil && ip != nil && ip.To4() == nil
}

func orDefault[T any](v []T, def T) []T {
	if len(v) == 0 {
		return []T{def}
	}
	return v
}

// Cases expands the matrix in the order it runs: grouped by server
// (key type, key cache, transport), then version, group, cipher,
// resumption and concurrency.
func (p *Plan) Cases() []Case {
	return p.matrix().Cases()
}

// matrix is the plan's axes with their defaults.
func (p *Plan) matrix() *plan.Matrix {
	m := &plan.Matrix{
		Mode:         ModeHandshake,
		Versions:     p.Versions,
		Resume:       p.Resume,
		ResumeRatios: p.ResumeRatios,
		Mutual:       p.Mutual,
		Keys:         orDefault(p.KeyTypes, DefaultKeyType),
		KeyCache:     orDefault(p.KeyCache, true),
		Groups:       orDefault(p.Groups, 0),
		Ciphers:      orDefault(p.Ciphers, ""),
		Concurrency:  p.Concurrency,
		Rates:        p.Rates,
		Arrival:      cmp.Or(p.Arrival, results.ArrivalConstant),
		NameKeyCache: len(p.Server.Identities) > 0 || len(p.KeyCache) > 1,
		Proxy:        p.Proxy.URL,
		MintCache:    p.MintCache,
		Values:       p.Axes,
	}
	if p.Target.Addr != "" {
		// The target's own certificate is what it is.
		m.Keys = []pki.KeyType{""}
	}
	for _, t := range orDefault(p.Transports, TransportTCP4) {
		if t == TransportTCP {
			t = TransportTCP4
		}
		m.Transports = append(m.Transports, t)
	}
	return m
}

// validateTarget checks the external server by the plan's rules, then
// the request asked of it.
func (p *Plan) validateTarget() error {
	t := p.Target
	err := plan.External{
		Addr: t.Addr, ServerName: t.ServerName, CAFile: t.CAFile, Insecure: t.Insecure,
		CertFile: t.CertFile, KeyFile: t.KeyFile, ServerPID: t.ServerPID, Command: t.Command,
		Mutual: p.Mutual, ClientIdentities: p.ClientIdentities, Transports: p.Transports,
	}.Check()
	if err != nil {
		return err
	}
	if _, err := client.ParseRequest(string(t.request())); err != nil {
		return plan.Errorf(plan.Settings.Request, nil, "%v", err)
	}
	if t.request() == client.RequestNone && slices.Contains(p.Versions, tls.VersionTLS13) && p.resumes() {
		// TLS 1.3 tickets arrive after the handshake; a client that
		// reads nothing never stores one, so every "resumed" case
		// would measure full handshakes.
		return plan.Errorf(plan.Settings.Request, nil, "%s none never reads TLS 1.3 session tickets (they arrive after the handshake), so TLS 1.3 %s on cases cannot resume: use %s auto, wait, ping, line or http, or leave out %s 1.3 or %s on", plan.Settings.Request, plan.Settings.Resume, plan.Settings.Request, plan.Settings.TLS, plan.Settings.Resume)
	}
	return nil
}

// request is the exchange after each handshake: the target's, or with a
// proxy given by URL http by default, since a bumping HTTP proxy parses
// what it relays (a ping is not HTTP).
func (p *Plan) request() client.Request {
	if p.Target.Request == "" && p.Proxy.URL != "" && !p.Proxy.builtin() {
		return client.RequestHTTP
	}
	return p.Target.request()
}

// resumes reports whether some case of the plan offers sessions.
func (p *Plan) resumes() bool {
	return slices.Contains(p.Resume, true) || slices.ContainsFunc(p.ResumeRatios, func(f float64) bool { return f > 0 })
}
