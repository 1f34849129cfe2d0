package runner

import (
	"crypto/tls"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// Transports a case can run over.
const (
	TransportTCP    = "tcp"
	TransportMemory = "memory"
)

// DefaultKeyType is the server key type when the plan names none.
const DefaultKeyType = pki.ECDSAP256

// Plan is what a run measures. The matrix is the cross product of
// Versions x Resume x Concurrency x KeyTypes x Groups x Transports.
type Plan struct {
	Versions    []uint16
	Resume      []bool
	Concurrency []int
	KeyTypes    []pki.KeyType
	// Groups are the key-exchange groups, one case each; a zero entry
	// (or an empty list) offers Go's default groups.
	Groups     []tls.CurveID
	Transports []string

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

	// Per case.
	Handshakes int
	Iterations int
	Warmup     int
	CaseTime   time.Duration // measured time limit per case (0: none)
	// MinResumption is the share of handshakes a resume case must resume
	// in its warm-up and in every measured iteration (0: no check);
	// MaxErrorRate the share of connections that may fail (0: none, 1:
	// any). See loadgen.HandshakeCase.
	MinResumption float64
	MaxErrorRate  float64
	ConnTimeout   time.Duration

	// Executable runs the child server (default: this program); its
	// arguments are ChildArgs (default ["serve"]).
	Executable string
	ChildArgs  []string
	ChildEnv   []string

	// Env is recorded in every result (default results.CurrentEnv()).
	Env *results.Env
	// Progress receives every finished iteration, and Notice one-line
	// remarks for the user (a server started, a case skipped).
	Progress func(CaseProgress)
	Notice   func(string)
}

// CaseProgress reports progress within a run.
type CaseProgress struct {
	Index, Total int // 1-based case index
	loadgen.Progress
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
	// ALPN protocols offered, e.g. ["http/1.1"].
	ALPN []string
	// Request is the exchange after each handshake: default http when
	// ALPN offers http/1.1 or h2, ping otherwise.
	Request loadgen.Request
}

// request returns the exchange in effect for the target.
func (t Target) request() loadgen.Request {
	if t.Request != "" {
		return t.Request
	}
	for _, p := range t.ALPN {
		if p == "http/1.1" || p == "h2" {
			return loadgen.RequestHTTP
		}
	}
	return loadgen.RequestPing
}

// Case is one cell of the matrix.
type Case struct {
	Name        string
	Version     uint16
	Resume      bool
	Concurrency int
	KeyType     pki.KeyType
	Group       tls.CurveID // 0: Go's defaults
	Transport   string
	Mutual      bool
	KeyCache    bool
	// NameKeyCache adds keycache-on/-off to the name (given identities,
	// or a key-cache comparison).
	NameKeyCache bool
	// NameKeyType adds the key type to the name even when it is the
	// default (a plan of several key types).
	NameKeyType bool
}

// Validate checks the plan before any work is done. Errors name the
// option at fault as the CLI spells it.
func (p *Plan) Validate() error {
	if len(p.Versions) == 0 {
		return fmt.Errorf("--tls: no TLS version given")
	}
	if err := p.checkDuplicates(); err != nil {
		return err
	}
	if len(p.Resume) == 0 {
		return fmt.Errorf("--resume: give off, on or both")
	}
	if len(p.Concurrency) == 0 {
		return fmt.Errorf("--concurrency: no level given")
	}
	for _, c := range p.Concurrency {
		if c < 1 || c > 4096 {
			return fmt.Errorf("--concurrency %d: must be between 1 and 4096", c)
		}
	}
	if p.Handshakes < 1 {
		return fmt.Errorf("--handshakes %d: must be at least 1", p.Handshakes)
	}
	if p.Iterations < 1 {
		return fmt.Errorf("--iterations %d: must be at least 1", p.Iterations)
	}
	if p.Warmup < 0 {
		return fmt.Errorf("--warmup %d: must be 0 or more", p.Warmup)
	}
	if p.MinResumption < 0 || p.MinResumption > 1 {
		return fmt.Errorf("--min-resumption %g: must be between 0 and 1", p.MinResumption)
	}
	if p.MaxErrorRate < 0 || p.MaxErrorRate > 1 {
		return fmt.Errorf("--max-error-rate %g: must be between 0%% and 100%%", p.MaxErrorRate)
	}
	for _, t := range p.Transports {
		if t != TransportTCP && t != TransportMemory {
			return fmt.Errorf("--transport %q: must be tcp or memory", t)
		}
	}
	if p.ClientIdentities < 0 || p.ClientIdentities > 100_000 {
		return fmt.Errorf("--client-identities %d: must be between 1 and 100000", p.ClientIdentities)
	}
	if p.ClientIdentities > 1 && !p.Mutual {
		return fmt.Errorf("--client-identities %d: client certificates are only sent with --mutual", p.ClientIdentities)
	}
	if p.SessionPool < 0 {
		return fmt.Errorf("--session-pool %d: must be at least 1", p.SessionPool)
	}
	if p.Target.Addr != "" {
		if err := p.validateTarget(); err != nil {
			return err
		}
		if len(p.Server.Identities) > 0 || len(p.KeyCache) > 0 {
			return fmt.Errorf("--identity and --key-cache configure the built-in server; they do not apply with --target")
		}
	} else {
		so := p.Server
		if p.Mutual || so.Mutual {
			// The run makes the CA that issues its client identities.
			so.Mutual, so.ClientCA = true, "generated"
		}
		if err := so.Validate(); err != nil {
			return err
		}
	}
	for _, g := range p.Groups {
		if g == 0 {
			continue
		}
		for _, v := range p.Versions {
			if v < tls.VersionTLS13 && isTLS13OnlyGroup(g) {
				return fmt.Errorf("--groups %s: a TLS 1.3-only group cannot be used with --tls 1.2; run them separately", tlsconf.GroupName(g))
			}
		}
	}
	return nil
}

// checkDuplicates refuses an axis that lists a value twice: its cases
// would run twice under one name.
func (p *Plan) checkDuplicates() error {
	dups := []struct {
		flag string
		dup  string
	}{
		{"--tls", duplicate(p.Versions, tlsconf.VersionName)},
		{"--resume", duplicate(p.Resume, func(b bool) string { return map[bool]string{false: "off", true: "on"}[b] })},
		{"--concurrency", duplicate(p.Concurrency, func(c int) string { return fmt.Sprint(c) })},
		{"--key", duplicate(p.KeyTypes, func(k pki.KeyType) string { return string(k) })},
		{"--groups", duplicate(p.Groups, tlsconf.GroupName)},
		{"--transport", duplicate(p.Transports, func(t string) string { return t })},
		{"--key-cache", duplicate(p.KeyCache, func(b bool) string { return map[bool]string{false: "off", true: "on"}[b] })},
	}
	for _, d := range dups {
		if d.dup != "" {
			return fmt.Errorf("%s: %s is given twice", d.flag, d.dup)
		}
	}
	return nil
}

// duplicate returns the first value of vals that appears twice, as name
// writes it; "" when there is none.
func duplicate[T comparable](vals []T, name func(T) string) string {
	seen := map[T]bool{}
	for _, v := range vals {
		if seen[v] {
			return name(v)
		}
		seen[v] = true
	}
	return ""
}

// isTLS13OnlyGroup reports post-quantum hybrids, which TLS 1.2 cannot
// negotiate.
func isTLS13OnlyGroup(g tls.CurveID) bool {
	switch g {
	case tls.X25519MLKEM768, tls.SecP256r1MLKEM768, tls.SecP384r1MLKEM1024:
		return true
	}
	return false
}

func orDefault[T any](v []T, def T) []T {
	if len(v) == 0 {
		return []T{def}
	}
	return v
}

// Cases expands the matrix in the order it runs: grouped by server
// (key type, key cache, transport), then version, resumption and
// concurrency.
func (p *Plan) Cases() []Case {
	keys := orDefault(p.KeyTypes, DefaultKeyType)
	if p.Target.Addr != "" {
		// The target's own certificate is what it is.
		keys = []pki.KeyType{""}
	}
	caches := orDefault(p.KeyCache, true)
	nameCache := len(p.Server.Identities) > 0 || len(caches) > 1
	// With several key types every case names its own, the default one
	// included; alone, the default key type is left out, so the default
	// matrix keeps its names.
	nameKey := len(keys) > 1
	groups := orDefault(p.Groups, 0)
	transports := orDefault(p.Transports, TransportTCP)
	var out []Case
	for _, k := range keys {
		for _, kc := range caches {
			for _, t := range transports {
				for _, v := range p.Versions {
					for _, g := range groups {
						for _, r := range p.Resume {
							for _, c := range p.Concurrency {
								cs := Case{Version: v, Resume: r, Concurrency: c, KeyType: k, Group: g, Transport: t, Mutual: p.Mutual,
									KeyCache: kc, NameKeyCache: nameCache, NameKeyType: nameKey}
								cs.Name = cs.name()
								out = append(out, cs)
							}
						}
					}
				}
			}
		}
	}
	return out
}

// name is the case's stable name: handshake/tls1.3/resume/c64, with
// segments for every dimension that is not at its default, e.g.
// handshake/tls1.2/full/rsa-2048/x25519/memory/c8, and for the key type
// and key cache whenever the plan has several (…/ecdsa-p256/… beside
// …/rsa-2048/…). Names are unique within a plan: Validate refuses an
// axis that lists a value twice.
func (c Case) name() string {
	parts := []string{"handshake", "tls" + tlsconf.VersionName(c.Version)}
	if c.Resume {
		parts = append(parts, "resume")
	} else {
		parts = append(parts, "full")
	}
	if c.Mutual {
		parts = append(parts, "mutual")
	}
	if c.KeyType != "" && (c.KeyType != DefaultKeyType || c.NameKeyType) {
		parts = append(parts, string(c.KeyType))
	}
	if c.NameKeyCache {
		parts = append(parts, "keycache-"+map[bool]string{true: "on", false: "off"}[c.KeyCache])
	}
	if c.Group != 0 {
		parts = append(parts, tlsconf.GroupName(c.Group))
	}
	if c.Transport == TransportMemory {
		parts = append(parts, TransportMemory)
	}
	parts = append(parts, fmt.Sprintf("c%d", c.Concurrency))
	return strings.Join(parts, "/")
}

func (p *Plan) validateTarget() error {
	host, port, err := net.SplitHostPort(p.Target.Addr)
	if err != nil || port == "" {
		return fmt.Errorf("--target %q: want host:port, e.g. 127.0.0.1:443", p.Target.Addr)
	}
	_ = host
	if p.Target.Insecure && p.Target.CAFile != "" {
		return fmt.Errorf("--insecure and --ca contradict each other: give one")
	}
	if _, err := loadgen.ParseRequest(string(p.Target.request())); err != nil {
		return fmt.Errorf("--request: %v", err)
	}
	if p.Target.request() == loadgen.RequestNone && slices.Contains(p.Versions, tls.VersionTLS13) && slices.Contains(p.Resume, true) {
		// TLS 1.3 tickets arrive after the handshake; a client that
		// reads nothing never stores one, so every "resumed" case
		// would measure full handshakes.
		return fmt.Errorf("--request none never reads TLS 1.3 session tickets (they arrive after the handshake), so TLS 1.3 --resume on cases cannot resume: use --request ping, line or http, or leave out --tls 1.3 or --resume on")
	}
	if (p.Target.CertFile == "") != (p.Target.KeyFile == "") {
		return fmt.Errorf("--client-cert and --client-key go together: give both")
	}
	if p.Mutual && p.Target.CertFile == "" {
		return fmt.Errorf("--mutual with --target needs the client identity: --client-cert FILE --client-key FILE")
	}
	if p.Target.ServerPID < 0 {
		return fmt.Errorf("--server-pid %d: not a process id", p.Target.ServerPID)
	}
	if p.ClientIdentities > 1 {
		return fmt.Errorf("--client-identities: an external target is measured with the one identity of --client-cert and --client-key")
	}
	if len(p.Transports) > 0 && (len(p.Transports) > 1 || p.Transports[0] != TransportTCP) {
		return fmt.Errorf("--transport memory needs the built-in server: drop --target or use --transport tcp")
	}
	return nil
}
