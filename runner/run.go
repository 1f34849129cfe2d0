package runner

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/tlsbench/tlsbench/internal/procid"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// FailedCases is returned when some cases failed (their resumption was
// below the minimum, too many connections failed, a wave stalled, every
// handshake of an iteration failed, or the server saw other identities
// than the client presented); the records of those that measured
// something were emitted, marked failed.
// It is a benchmark failure, not a usage error.
type FailedCases struct{ Errs []error }

func (f *FailedCases) Error() string {
	msgs := make([]string, len(f.Errs))
	for i, e := range f.Errs {
		msgs[i] = e.Error()
	}
	return fmt.Sprintf("%d case(s) failed: %s", len(f.Errs), strings.Join(msgs, "; "))
}

// Unwrap lets errors.As find the individual failures.
func (f *FailedCases) Unwrap() []error { return f.Errs }

// ServerStartError is a server that could not be started (the built-in
// one) or prepared for (a target).
type ServerStartError struct {
	Target bool
	Err    error
}

func (e *ServerStartError) Error() string {
	if e.Target {
		return "target: " + e.Err.Error()
	}
	return "starting the built-in server: " + e.Err.Error()
}

func (e *ServerStartError) Unwrap() error { return e.Err }

// clientIdentity is one client certificate and the scope of its sessions.
type clientIdentity struct {
	cert  *tls.Certificate
	scope string // SHA-256 thumbprint, hex: sessions never cross it
	key   string // server.IdentityKey form, for the server's cross-check
}

// runState is what a run shares between its cases.
type runState struct {
	plan       *Plan
	env        results.Env
	dir        string // private temporary directory (PKI files)
	ca         *pki.CA
	roots      *x509.CertPool
	serverName string
	insecure   bool
	identities []clientIdentity
}

// Run measures every case of p and passes each record to emit as soon as
// it is measured. When ctx ends, the case in progress is emitted with what
// it measured and Run returns ctx's error.
func Run(ctx context.Context, p Plan, emit func(*results.Record) error) error {
	if err := p.Validate(); err != nil {
		return err
	}
	st := &runState{plan: &p, env: results.CurrentEnv()}
	if p.Env != nil {
		st.env = *p.Env
	}
	if pid := p.Target.ServerPID; pid > 0 {
		// Name the server measured, as results name their peers.
		if name, v, err := procid.Identify(pid); err == nil && v != "" {
			if st.env.Peers == nil {
				st.env.Peers = map[string]string{}
			}
			st.env.Peers[name] = v
		}
	}
	dir, err := os.MkdirTemp("", "tlsbench-run-")
	if err != nil {
		return fmt.Errorf("temporary directory: %w", err)
	}
	defer os.RemoveAll(dir)
	st.dir = dir
	if p.Target.Addr != "" {
		err = st.setupTarget()
	} else {
		err = st.setupBuiltin()
	}
	if err != nil {
		return err
	}

	cases := p.Cases()
	var failed []error
	for i := 0; i < len(cases); {
		// The cases of one server: same key type, key cache and transport.
		j := i
		for j < len(cases) && cases[j].KeyType == cases[i].KeyType && cases[j].Transport == cases[i].Transport &&
			cases[j].KeyCache == cases[i].KeyCache {
			j++
		}
		srv, err := st.startServer(ctx, cases[i])
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &ServerStartError{Target: p.Target.Addr != "", Err: err}
		}
		for k := i; k < j; k++ {
			rec, err := srv.guardCase(ctx, cases[k].Name, func(ctx context.Context) (*results.Record, error) {
				return st.runCase(ctx, cases[k], k+1, len(cases), srv)
			})
			if rec != nil {
				if eerr := emit(rec); eerr != nil {
					srv.close()
					return eerr
				}
			}
			if err != nil {
				if ctx.Err() == nil && isCaseFailure(err) {
					failed = append(failed, err)
					continue
				}
				srv.close()
				return err
			}
		}
		if err := srv.close(); err != nil && ctx.Err() == nil {
			return err
		}
		i = j
	}
	if len(failed) > 0 {
		return &FailedCases{Errs: failed}
	}
	return nil
}

// isCaseFailure tells a failure of one case, after which the run goes on,
// from a failure of the run.
func isCaseFailure(err error) bool {
	var (
		re *loadgen.ResumptionError
		ce *loadgen.CaseError
		ie *loadgen.IdentityError
		ee *loadgen.ErrorRateError
		se *loadgen.StallError
	)
	return errors.As(err, &re) || errors.As(err, &ce) || errors.As(err, &ie) || errors.As(err, &ee) || errors.As(err, &se)
}

// setupBuiltin makes the run's test PKI: the CA, and the client identities
// for mutual TLS.
func (st *runState) setupBuiltin() error {
	ca, err := pki.NewCA()
	if err != nil {
		return err
	}
	st.ca, st.roots, st.serverName = ca, ca.Pool(), "localhost"
	if len(st.plan.Server.Identities) > 0 {
		if err := st.setupGivenIdentities(); err != nil {
			return err
		}
	}
	if !st.plan.Mutual {
		return nil
	}
	n := max(st.plan.ClientIdentities, 1)
	for i := 1; i <= n; i++ {
		id, err := ca.IssueClient(fmt.Sprintf("tlsbench client %d", i))
		if err != nil {
			return fmt.Errorf("client identity %d: %w", i, err)
		}
		cert := id.TLSCertificate()
		st.identities = append(st.identities, clientIdentity{
			cert: &cert, scope: pki.ThumbprintHex(id.Leaf), key: server.IdentityKey(id.Leaf),
		})
	}
	return nil
}

// setupGivenIdentities prepares for a built-in server that uses the
// identities the user gave (--identity): the clients verify them with
// ServerCA, or the ca.pem of the tlsbench pki init layout beside the first
// identity file.
func (st *runState) setupGivenIdentities() error {
	p := st.plan
	caFile := p.ServerCA
	if caFile == "" {
		first := p.Server.Identities[0]
		caFile = filepath.Join(filepath.Dir(first.Cert+first.P12), pki.RootCertFile)
		if _, err := os.Stat(caFile); err != nil {
			return &ServerStartError{Err: fmt.Errorf("--identity: no %s beside %s to verify it with; give the CA with --ca FILE", pki.RootCertFile, first.Cert+first.P12)}
		}
	}
	certs, err := pki.LoadCertsPEM(caFile)
	if err != nil {
		return &ServerStartError{Err: fmt.Errorf("--ca: %w", err)}
	}
	st.roots = x509.NewCertPool()
	for _, c := range certs {
		st.roots.AddCert(c)
	}
	if p.Target.ServerName != "" {
		st.serverName = p.Target.ServerName
	}
	return nil
}

// setupTarget loads what the client needs to talk to an external server.
func (st *runState) setupTarget() error {
	t := st.plan.Target
	st.serverName = t.ServerName
	if st.serverName == "" {
		st.serverName, _, _ = net.SplitHostPort(t.Addr)
	}
	st.insecure = t.Insecure
	if t.CAFile != "" {
		certs, err := pki.LoadCertsPEM(t.CAFile)
		if err != nil {
			return &ServerStartError{Target: true, Err: fmt.Errorf("--ca: %w", err)}
		}
		st.roots = x509.NewCertPool()
		for _, c := range certs {
			st.roots.AddCert(c)
		}
	}
	if t.CertFile != "" {
		id, err := pki.LoadIdentityPEM(t.CertFile, t.KeyFile)
		if err != nil {
			return &ServerStartError{Target: true, Err: fmt.Errorf("--client-cert/--client-key: %w", err)}
		}
		cert := id.TLSCertificate()
		st.identities = []clientIdentity{{cert: &cert, scope: pki.ThumbprintHex(id.Leaf), key: server.IdentityKey(id.Leaf)}}
	}
	return nil
}

// builtin is the server of a group of cases: the built-in one in a child
// process or in this one, or an external target.
type builtin struct {
	dialer   loadgen.Dialer
	observer loadgen.ServerObserver
	close    func() error
}

func (st *runState) startServer(ctx context.Context, c Case) (*builtin, error) {
	kt, transport := c.KeyType, c.Transport
	p := st.plan
	if p.Target.Addr != "" {
		b := &builtin{dialer: loadgen.TCPDialer{Addr: p.Target.Addr}, close: func() error { return nil }}
		if pid := p.Target.ServerPID; pid > 0 {
			obs := loadgen.ProcessCPU{PID: pid}
			if _, err := obs.Snapshot(); err != nil {
				return nil, err
			}
			b.observer = obs
		}
		return b, nil
	}
	opts := p.Server
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1:0"
	}
	opts.DisableKeyCache = !c.KeyCache
	if len(opts.Identities) == 0 {
		files, err := st.writeServerIdentity(kt)
		if err != nil {
			return nil, err
		}
		opts.Identities = []server.IdentityFiles{files}
	}
	if p.Mutual || opts.Mutual {
		opts.Mutual = true
		opts.ClientCA = filepath.Join(st.dir, "ca.pem")
		if err := pki.WriteCertsPEM(opts.ClientCA, st.ca.Root()); err != nil {
			return nil, err
		}
	}

	if transport == TransportMemory {
		sctx, cancel := context.WithCancel(ctx)
		srv, err := server.NewFromOptions(opts)
		if err != nil {
			cancel()
			return nil, err
		}
		return &builtin{
			dialer:   loadgen.MemoryDialer{Server: srv, Ctx: sctx},
			observer: loadgen.InProcessServer{Server: srv},
			close:    func() error { cancel(); return nil },
		}, nil
	}

	exe := p.Executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("finding tlsbench to start the server: %w", err)
		}
	}
	args := p.ChildArgs
	if args == nil {
		args = []string{"serve"}
	}
	child, err := server.StartChild(ctx, server.ChildOptions{Path: exe, Args: args, Env: p.ChildEnv, Server: opts})
	if err != nil {
		return nil, err
	}
	if p.Notice != nil {
		p.Notice(fmt.Sprintf("built-in server (%s) pid %d on %s", kt, child.PID(), child.Hello().Addr))
	}
	return &builtin{
		dialer:   &childDialer{TCPDialer: loadgen.TCPDialer{Addr: child.Hello().Addr}, child: child},
		observer: loadgen.ChildServer{Child: child},
		close:    child.Close,
	}, nil
}

// writeServerIdentity issues a server identity of key type kt from the
// run's CA and writes it to the run's directory (key 0600).
func (st *runState) writeServerIdentity(kt pki.KeyType) (server.IdentityFiles, error) {
	id, err := st.ca.IssueServer(nil, pki.WithKeyType(kt))
	if err != nil {
		return server.IdentityFiles{}, fmt.Errorf("server identity (%s): %w", kt, err)
	}
	files := server.IdentityFiles{
		Cert: filepath.Join(st.dir, "server-"+string(kt)+".pem"),
		Key:  filepath.Join(st.dir, "server-"+string(kt)+"-key.pem"),
	}
	if err := pki.WriteCertsPEM(files.Cert, id.Chain...); err != nil {
		return files, err
	}
	return files, pki.WriteKeyPEM(files.Key, id.Key)
}

// clients builds the client configurations of a case: one per identity,
// each with its own session scope, so that a session made as identity A is
// never offered while presenting identity B.
func (st *runState) clients(c Case) ([]*tls.Config, []string) {
	p := st.plan
	co := tlsconf.ClientOptions{Version: c.Version, RootCAs: st.roots, ServerName: st.serverName, Insecure: st.insecure, NextProtos: p.Target.ALPN}
	if c.Group != 0 {
		co.Groups = []tls.CurveID{c.Group}
	}
	var pool *tlsconf.SessionPool
	if c.Resume {
		size := p.SessionPool
		if size == 0 {
			size = c.Concurrency
		}
		pool = tlsconf.NewSessionPool(size, p.TicketReuse)
	}
	if len(st.identities) == 0 {
		if pool != nil {
			co.Sessions = pool.Scoped("")
		}
		return []*tls.Config{tlsconf.Client(co)}, nil
	}
	var cfgs []*tls.Config
	var keys []string
	for _, id := range st.identities {
		o := co
		o.Certificate = id.cert
		if pool != nil {
			o.Sessions = pool.Scoped(id.scope)
		}
		cfgs = append(cfgs, tlsconf.Client(o))
		keys = append(keys, id.key)
	}
	if p.Target.Addr != "" {
		keys = nil // an external server cannot be asked what it saw
	}
	return cfgs, keys
}

func (st *runState) runCase(ctx context.Context, c Case, index, total int, srv *builtin) (*results.Record, error) {
	p := st.plan
	cfgs, keys := st.clients(c)
	rec := results.Record{KeyType: string(c.KeyType), Env: st.env, Target: p.Target.Addr, SessionStore: sessionStore(p)}
	if c.NameKeyCache {
		rec.KeyCache = results.Bool(c.KeyCache)
	}
	if p.Target.Insecure {
		rec.Env.Insecure = true
	}
	hc := loadgen.HandshakeCase{
		Name:             c.Name,
		Version:          c.Version,
		Resume:           c.Resume,
		Mutual:           c.Mutual,
		Concurrency:      c.Concurrency,
		Handshakes:       p.Handshakes,
		Iterations:       p.Iterations,
		Warmup:           p.Warmup,
		MaxDuration:      p.CaseTime,
		MinResumption:    p.MinResumption,
		MaxErrorRate:     p.MaxErrorRate,
		ConnTimeout:      p.ConnTimeout,
		Clients:          cfgs,
		ClientIdentities: keys,
		Dialer:           srv.dialer,
		Server:           srv.observer,
		Record:           rec,
	}
	if p.Target.Addr != "" {
		// An external server cannot say which sessions it declined:
		// the client counts first uses and reuses of its tickets.
		hc.TrackTicketUse = p.TicketReuse == tlsconf.ReuseMulti
		host := st.serverName
		if net.ParseIP(host) != nil {
			host = p.Target.Addr
		}
		hc.Exchange = p.Target.request().Exchange(host)
		if p.Target.request() == loadgen.RequestNone {
			hc.Record.Notes = append(hc.Record.Notes, "--request none: the client closes right after the handshake, so TLS 1.3 tickets are never read")
		}
	}
	if p.Progress != nil {
		hc.Progress = func(pr loadgen.Progress) {
			p.Progress(CaseProgress{Index: index, Total: total, Progress: pr})
		}
	}
	got, err := loadgen.RunHandshakes(ctx, hc)
	st.addHints(err)
	if got != nil && c.Mutual {
		got.ClientIdentities = len(cfgs)
	}
	return got, err
}

// sessionStore is the record's session_store: the built-in server's store,
// which compare needs to tell a stateful cache from tickets; unknown
// (empty) for an external target.
func sessionStore(p *Plan) string {
	switch {
	case p.Target.Addr != "":
		return ""
	case p.Server.DisableTickets:
		return "none"
	case p.Server.SessionStore == "":
		return server.StoreTickets
	}
	return p.Server.SessionStore
}

// addHints points the errors of a case at the flag that fixes them, where
// the run knows more than the case: the ticket reuse mode, the request.
func (st *runState) addHints(err error) {
	p := st.plan
	var re *loadgen.ResumptionError
	if errors.As(err, &re) {
		// Single-use tickets fail from the start; resumption that stops
		// part-way through a case is a server that changed (keys
		// rotated, tickets turned off, a cache evicting).
		// The client's own counts (first uses resumed, reuses did not)
		// prove single-use tickets wherever they fell; the server's
		// "unknown" declines only when resumption never held.
		singleUse := re.SingleUse || re.ServerDeclined["unknown"] > 0 && (!re.Measured || re.AllFell)
		switch {
		case singleUse && p.TicketReuse == tlsconf.ReuseMulti:
			re.Hint = "the server refused sessions it had already accepted once, as servers with single-use tickets do: try --ticket-reuse single"
		case !re.Measured && p.Target.Addr != "":
			re.Hint = "see what the server does about resumption: tlsbench probe " + p.Target.Addr
		}
	}
	var se *loadgen.StallError
	if errors.As(err, &se) && se.Stage == "exchange" && p.Target.Addr != "" {
		switch p.Target.request() {
		case loadgen.RequestPing:
			se.Hint = "it does not echo the ping: use --request http for an HTTP server, or --request line for a line-based one"
		case loadgen.RequestLine:
			se.Hint = "it does not answer a line: use --request http for an HTTP server"
		default:
			se.Hint = fmt.Sprintf("it does not answer --request %s: try another --request", p.Target.request())
		}
	}
}
