package runner

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/childproc"
	"github.com/tlsbench/tlsbench/internal/extserver"
	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/tempdir"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/profile"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// ServerStartError is a server that could not be started (the built-in
// one) or prepared for (a target).
type ServerStartError struct {
	Target bool
	Err    error
}

func (e *ServerStartError) Error() string {
	var fe *field.Error
	var pe *plan.Error
	if e.Target && (errors.As(e.Err, &fe) || errors.As(e.Err, &pe)) {
		// A setting of the target that cannot work names itself
		// (--server-pid, --versus-pid).
		return e.Err.Error()
	}
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
	url        *proxyRun // a proxy given by URL, checked at the start
	// envB is side b's environment when it names another server process
	// (--versus-pid) than side a's; nil: st.env.
	envB *results.Env
	// starts are when the cases begin, by name (Plan.StartAt); runPlan
	// is the plan's digest in a sharded run.
	starts  map[string]time.Time
	runPlan string
	// detected is the request each target was found to answer, by
	// address (with the request auto).
	detected map[string]client.Detection
	// commands are the servers the run started by command, by address.
	commands map[string]*extserver.Server
}

// envOf is the environment recorded for side sp.
func (st *runState) envOf(sp *sideSpec) results.Env {
	if sp.name == results.SideB && st.envB != nil {
		return *st.envB
	}
	return st.env
}

// Run measures every case of p and passes each record to emit as soon as
// it is measured. When ctx ends, the case in progress is emitted with what
// it measured and Run returns ctx's error. In a child that a run started
// by re-running its program, which should have run the built-in server
// or proxy (RunChildIfAsked), Run does not return: it exits saying so,
// for its parent to report, rather than start a run there.
func Run(ctx context.Context, p Plan, emit func(*results.Record) error) error {
	childproc.RefuseUndispatched(undispatched)
	if err := p.Validate(); err != nil {
		return err
	}
	st := &runState{plan: &p, env: results.CurrentEnv()}
	if p.Env != nil {
		st.env = *p.Env
	}
	cases := p.Cases()
	st.starts = p.caseStarts(cases)
	if p.Shard.Enabled() {
		st.env.Host, st.runPlan = hostName(), p.RunPlan()
	}
	if !p.StartAt.IsZero() && p.Notice != nil {
		p.Notice(fmt.Sprintf("the first case begins at %s", p.StartAt.UTC().Format(time.RFC3339Nano)))
	}
	var err error
	if st.url, err = prepareProxy(ctx, p.Proxy); err != nil {
		return err
	}
	// Named with this process's ID: a later run removes it if this one
	// is killed before its deferred removal.
	dir, _, err := tempdir.Make("tlsbench-run-")
	if err != nil {
		return fmt.Errorf("temporary directory: %w", err)
	}
	defer tempdir.Remove(dir)
	st.dir = dir
	defer st.stopCommands()
	if err := st.startCommands(ctx); err != nil {
		return err
	}
	base := st.env
	st.env = *withServerPeer(base, st.serverPID(&p.Target))
	if pid := st.serverPID(&p.Versus.Target); pid > 0 {
		st.envB = withServerPeer(base, pid)
	}
	if p.Target.Addr != "" {
		err = st.setupTarget()
	} else {
		err = st.setupBuiltin()
	}
	if err != nil {
		return err
	}

	return runCases(ctx, cases, st, emit)
}

// setupBuiltin makes the run's test PKI: the CA, and the client identities
// for mutual TLS.
func (st *runState) setupBuiltin() error {
	ca, err := pki.NewCA()
	if err != nil {
		return err
	}
	st.ca, st.roots, st.serverName = ca, ca.Pool(), "localhost"
	// Through a proxy the client trusts the proxy's CA, not the server's.
	if len(st.plan.Server.Identities) > 0 && st.plan.Proxy.URL == "" {
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
	roots, err := givenRoots(p.Server.Identities, p.ServerCA, true)
	if err != nil {
		return &ServerStartError{Err: err}
	}
	st.roots = roots
	if p.Target.ServerName != "" {
		st.serverName = p.Target.ServerName
	}
	return nil
}

// givenCAFile is the CA file that verifies identities the user gave:
// serverCA, or the ca.pem of the tlsbench pki init layout beside the
// first identity file.
// The error is a *plan.Error; canGiveCA says whether the plan has a
// ServerCA field to suggest (handshake plans do).
func givenCAFile(ids []server.IdentityFiles, serverCA string, canGiveCA bool) (string, error) {
	if serverCA != "" {
		return serverCA, nil
	}
	first := ids[0]
	caFile := filepath.Join(filepath.Dir(first.Cert+first.P12), pki.RootCertFile)
	if _, err := os.Stat(caFile); err != nil {
		if canGiveCA {
			return "", plan.Errorf(plan.Settings.Identity, nil, "no %s beside %s to verify it with; give the CA with %s FILE", pki.RootCertFile, first.Cert+first.P12, plan.Settings.CA)
		}
		return "", plan.Errorf(plan.Settings.Identity, nil, "no %s beside %s to verify it with; put the certificate of the CA that issued it there", pki.RootCertFile, first.Cert+first.P12)
	}
	return caFile, nil
}

// givenRoots loads the CA of givenCAFile.
func givenRoots(ids []server.IdentityFiles, serverCA string, canGiveCA bool) (*x509.CertPool, error) {
	caFile, err := givenCAFile(ids, serverCA, canGiveCA)
	if err != nil {
		return nil, err
	}
	certs, err := pki.LoadCertsPEM(caFile)
	if err != nil {
		return nil, plan.Errorf(plan.Settings.CA, caFile, "%v", err)
	}
	roots := x509.NewCertPool()
	for _, c := range certs {
		roots.AddCert(c)
	}
	return roots, nil
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
			return &ServerStartError{Target: true, Err: plan.Errorf(plan.Settings.CA, nil, "%v", err)}
		}
		st.roots = x509.NewCertPool()
		for _, c := range certs {
			st.roots.AddCert(c)
		}
	}
	if t.CertFile != "" {
		id, err := pki.LoadIdentityPEM(t.CertFile, t.KeyFile)
		if err != nil {
			e := plan.Errorf(plan.Settings.ClientCert, nil, "%v", err)
			e.Also = []*plan.Setting{plan.Settings.ClientKey}
			return &ServerStartError{Target: true, Err: e}
		}
		cert := id.TLSCertificate()
		st.identities = []clientIdentity{{cert: &cert, scope: pki.ThumbprintHex(id.Leaf), key: server.IdentityKey(id.Leaf)}}
	}
	return nil
}

// targeted implements mode.
func (st *runState) targeted() bool { return st.plan.Target.Addr != "" }

// notRunnable implements mode: the case's record on every side.
func (st *runState) notRunnable(c *Case) []*results.Record {
	if st.plan.Notice != nil {
		st.plan.Notice(c.Name + ": " + c.NotRunnable)
	}
	var out []*results.Record
	for _, sp := range st.plan.sides() {
		rec := notRunnableRecord(c, results.Record{Env: st.envOf(&sp), Target: sp.target.Addr, SessionStore: sessionStore(st.plan, &sp), Side: sp.name})
		st.shardRecord(rec)
		if sp.name != "" {
			rec.Versus = st.plan.Versus.describe()
		}
		out = append(out, rec)
	}
	return out
}

// startServer implements mode: the servers of every side of c (see
// Plan.sides): side a's is returned, with the others in its sides.
func (st *runState) startServer(ctx context.Context, c *Case) (*builtin, error) {
	specs := st.plan.sides()
	a, err := st.startSide(ctx, c, &specs[0])
	if err != nil {
		return nil, err
	}
	for i := 1; i < len(specs); i++ {
		o, err := st.startSide(ctx, c, &specs[i])
		if err != nil {
			a.close()
			if x := specs[i].executable; x != "" {
				return nil, fmt.Errorf("side %s, the server of %s (is it a tlsbench program?): %w", specs[i].name, x, err)
			}
			return nil, fmt.Errorf("side %s: %w", specs[i].name, err)
		}
		a.sides = append(a.sides, o)
	}
	return a, nil
}

// startSide starts one side's server: its target, or the built-in
// server configured for c's group.
func (st *runState) startSide(ctx context.Context, c *Case, sp *sideSpec) (*builtin, error) {
	p := st.plan
	if t := sp.target; t.Addr != "" {
		b := &builtin{dialer: client.TCPDialer{Addr: t.Addr}, origin: t.Addr}
		if s := st.commands[t.Addr]; s != nil { // its death ends the case, as a built-in server's does
			b.observer, b.dialer = s, &childDialer{Dialer: b.dialer, child: s}
		} else if pid := t.ServerPID; pid > 0 {
			obs, notice, err := extserver.Attach(pid, t.Addr)
			if err != nil {
				return nil, plan.Errorf(sp.setting(p, plan.Settings.ServerPID, plan.Settings.VersusPID), pid, "%v", err)
			}
			if notice != "" && p.Notice != nil {
				p.Notice(notice)
			}
			b.observer = obs
		}
		return b, nil
	}
	opts := p.Server
	configureServer(c, &opts)
	if opts.MaxConns == 0 {
		opts.MaxConns = benchmarkMaxConns(p.peakConns())
	}
	if opts.QUIC {
		// The server's default refuses a ticket's second early data,
		// and the load generator offers each ticket again and again:
		// accept unless the plan says otherwise, recorded in each
		// case's early_data_policy (earlyDataPolicy).
		opts.EarlyDataPolicy = cmp.Or(p.EarlyDataPolicy, server.EarlyDataAccept)
	}
	sp.applySettings(&opts)
	if len(opts.Identities) == 0 {
		files, err := st.writeServerIdentity(c.KeyType)
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
	at := inChild
	if c.Transport == TransportMemory {
		at = overMemory
	}
	child := childPlumbing{Executable: p.Executable, Args: p.ChildArgs, Env: p.ChildEnv, Instructions: p.Instructions}
	if sp.executable != "" {
		// A relative path names a file here, never one on $PATH.
		exe, err := filepath.Abs(sp.executable)
		if err != nil {
			return nil, err
		}
		child = childPlumbing{Executable: exe, Env: p.ChildEnv, Instructions: p.Instructions}
	}
	describe := string(c.KeyType)
	if sp.name != "" {
		describe += ", side " + sp.name
	}
	b, err := startBuiltin(ctx, opts, at, child, p.Notice, describe)
	if err == nil && opts.QUIC && b.quicAddr == "" {
		b.close()
		return nil, errNoQUICListener
	}
	return b, err
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
func (st *runState) clients(c *Case, srv *builtin, external bool) ([]*tls.Config, []string) {
	p := st.plan
	co := tlsconf.ClientOptions{RootCAs: st.roots, ServerName: st.serverName, Insecure: st.insecure, NextProtos: p.Target.ALPN}
	if srv.proxy != nil {
		// The client talks TLS with the proxy, which minted the
		// certificate for the server's name.
		co.RootCAs, co.Insecure = srv.proxy.roots, false
	}
	c.ConfigureClient(&co)
	var pool *tlsconf.SessionPool
	if c.Resume {
		pool = tlsconf.NewSessionPool(st.sessionPoolSize(c), p.TicketReuse)
	}
	if len(st.identities) == 0 {
		if pool != nil {
			co.Sessions = pool.Scoped("")
		}
		return []*tls.Config{tlsconf.Client(co)}, nil
	}
	var cfgs []*tls.Config
	var keys []string
	for _, id := range st.shardClients(st.identities) {
		o := co
		o.Certificate = id.cert
		if pool != nil {
			o.Sessions = pool.Scoped(id.scope)
		}
		cfgs = append(cfgs, tlsconf.Client(o))
		keys = append(keys, id.key)
	}
	if external {
		keys = nil // an external server cannot be asked what it saw
	}
	return cfgs, keys
}

// sessionPoolSize is how many sessions the client keeps per identity in
// c: the plan's, or enough for a wave (or an open-loop case's in flight).
func (st *runState) sessionPoolSize(c *Case) int {
	switch p := st.plan; {
	case p.SessionPool != 0:
		return p.SessionPool
	case c.Rate > 0:
		return measure.OpenLoopSessions(p.MaxInflight)
	}
	return st.plan.Shard.share(c.Concurrency)
}

// runCase implements mode: the case measured (measureCase), or searched
// for its sustainable rate (findRate).
func (st *runState) runCase(ctx context.Context, c *Case, index, total int, srv *builtin) ([]*results.Record, error) {
	if st.plan.FindRate != nil {
		return st.findRate(ctx, c, index, total, srv)
	}
	return st.measureCase(ctx, c, index, total, srv)
}

// measureCase measures c on its one side, or interleaved on every side
// of the run: one record per side.
func (st *runState) measureCase(ctx context.Context, c *Case, index, total int, srv *builtin) ([]*results.Record, error) {
	specs := st.plan.sides()
	servers := append([]*builtin{srv}, srv.sides...)
	st.resolveRequests(ctx, c, specs, servers)
	hcs := make([]measure.HandshakeCase, len(specs))
	keys := make([]*client.PeerKeys, len(specs))
	for i := range specs {
		hcs[i] = st.handshakeCase(c, &specs[i], servers[i])
		keys[i] = watchPeerKeys(c, &specs[i], hcs[i].Clients)
	}
	if p := st.plan; p.Progress != nil {
		// Side a measures in every round: its iterations are the
		// case's progress.
		hcs[0].Progress = func(pr measure.Progress) {
			p.Progress(CaseProgress{Index: index, Total: total, Progress: pr})
		}
	}
	profs := make([]*profile.Case, len(hcs))
	for i := range hcs {
		// The client is one process for every side: side a holds its
		// profile.
		profs[i] = servers[i].profiles(st.plan.Profile, c.Name, specs[i].name, i == 0)
		hcs[i].Measuring = profs[i].Hook()
	}
	var recs []*results.Record
	var err error
	if len(hcs) == 1 {
		var rec *results.Record
		rec, err = loadgen.RunHandshakes(ctx, hcs[0])
		recs = []*results.Record{rec}
	} else {
		recs, err = loadgen.RunInterleaved(ctx, hcs)
	}
	st.addHints(err, &hcs[0])
	profile.Notes(recs, profs)
	for i, got := range recs {
		if got == nil {
			continue
		}
		// loadgen names the transport by its dialer ("tcp" for both
		// families); the axis knows which.
		c.Record(got)
		recordPeerKeys(keys[i], got)
		specs[i].recordSettings(got)
		st.shardRecord(got)
		if c.Rate == 0 {
			got.Concurrency = hcs[i].Concurrency // the shard's wave
		}
		if c.Mutual {
			got.ClientIdentities = len(hcs[i].Clients)
		}
		cipherNote(c, got)
		proxyNote(c, got)
		got.Notes = append(got.Notes, hcs[i].SessionIDs.Notes()...)
	}
	return compact(recs), err
}

// handshakeCase is c measured on one side: sp's server, srv.
func (st *runState) handshakeCase(c *Case, sp *sideSpec, srv *builtin) measure.HandshakeCase {
	p := st.plan
	cfgs, keys := st.clients(c, srv, sp.target.Addr != "")
	rec := results.Record{Env: st.envOf(sp), Target: sp.target.Addr, SessionStore: sessionStore(p, sp), Side: sp.name}
	if sp.name != "" {
		rec.Versus = p.Versus.describe()
	}
	if build := srv.build; p.Versus.Executable != "" && sp.target.Addr == "" {
		// Two programs' servers: each side names its server's build as
		// results name their peers, so that the two environments differ
		// in exactly that.
		if build == "" {
			build = rec.Env.TLSBenchVersion + " (" + rec.Env.GoVersion + ")"
		}
		rec.Env = rec.Env.WithPeer("tlsbench-server", build)
	}
	c.Record(&rec)
	sp.recordSettings(&rec)
	if p.Target.Insecure {
		rec.Env.Insecure = true
	}
	hc := measure.HandshakeCase{
		Name: c.Name, Version: c.Version, Resume: c.Resume, Mutual: c.Mutual, Concurrency: c.Concurrency,
		Handshakes: p.Handshakes, Iterations: p.Iterations, Warmup: p.Warmup, MaxDuration: p.CaseTime,
		IterationsGiven: p.IterationsGiven, TargetError: p.TargetError, MinResumption: &p.MinResumption, MaxErrorRate: p.MaxErrorRate,
		ConnTimeout: p.ConnTimeout, Clients: cfgs, ClientIdentities: keys,
		Dialer: srv.caseDialer(), Server: p.serverObserver(srv.observer), Proxy: srv.proxyObserver(),
		Record: rec, Words: p.Words,
		Rate: c.Rate, Duration: p.Duration, StartAt: st.starts[c.Name],
		ListenQueue: listenQueue(c, sp),
	}
	st.quicCase(&hc, c, sp, srv)
	if c.Rate > 0 {
		hc.Arrival, hc.MaxInflight = c.Arrival, p.MaxInflight
	}
	p.shardLoad(&hc)
	if f := c.ResumeRatio; f != nil && *f > 0 && *f < 1 {
		// 0 and 1 run as full and resume cases do (1 held to the
		// minimum resumption); a share between them is a mix.
		hc.ResumeRatio = f
	}
	if c.Proxy != "" {
		// What the exchange says must get through the proxy: a bumping
		// HTTP proxy parses it.
		hc.Exchange = p.request().Exchange(st.serverName)
		hc.Record.Request = string(p.request())
		// The proxy answers the CONNECT after its own handshake with
		// the server: a connection's latency spans both legs.
		hc.LatencyFromDial = true
	}
	if sp.target.Addr != "" {
		// An external server cannot say which sessions it declined:
		// the client counts first uses and reuses of its tickets.
		hc.TrackTicketUse = p.TicketReuse == tlsconf.ReuseMulti
		var req client.Request
		hc.Exchange, req, hc.Record.RequestAuto = st.targetExchange(sp)
		hc.Record.Request = string(req)
		if req == client.RequestNone {
			hc.Record.Notes = append(hc.Record.Notes, "request none: the client closes right after the handshake, so TLS 1.3 tickets are never read")
		}
	}
	if plan.ResumesByID(c) {
		// A session ID may be offered again and again: no ticket use to track.
		hc.SessionIDs, hc.TrackTicketUse = client.NewIDSessions(st.sessionPoolSize(c)), false
	}
	return hc
}

// sessionStore is the record's session_store: the built-in server's store,
// which compare needs to tell a stateful cache from tickets; unknown
// (empty) for an external target.
func sessionStore(p *Plan, sp *sideSpec) string {
	switch {
	case sp.target.Addr != "":
		return ""
	case p.Server.DisableTickets:
		return "none"
	case p.Server.SessionStore == "":
		return server.StoreTickets
	}
	return p.Server.SessionStore
}

// addHints points the errors of a case at the flag that fixes them, where
// the run knows more than the case: the ticket reuse mode, the request,
// what the connections of a case that resumes by session ID saw (hc).
func (st *runState) addHints(err error, hc *measure.HandshakeCase) {
	p := st.plan
	var re *measure.ResumptionError
	if errors.As(err, &re) {
		// Single-use tickets fail from the start; resumption that stops
		// part-way through a case is a server that changed (keys
		// rotated, tickets turned off, a cache evicting).
		// The client's own counts (first uses resumed, reuses did not)
		// prove single-use tickets wherever they fell; the server's
		// "unknown" declines only when resumption never held.
		singleUse := re.SingleUse || re.ServerDeclined["unknown"] > 0 && (!re.Measured || re.AllFell)
		switch {
		case hc.SessionIDs != nil:
			re.Hint = hc.SessionIDs.Why()
		case p.Proxy.URL != "":
			// The client's sessions are the proxy's to resume, whatever
			// the server does.
			re.Hint = "the proxy does not resume the client's sessions (they are resumed, or not, by the proxy, which ends the client's TLS: check what its configuration allows)"
		case re.SingleUse && p.TicketReuse == tlsconf.ReuseMulti && re.Measured && !re.AllFell:
			// Resumption held, then sessions offered again stopped
			// resuming while fresh ones did: the counts of single-use
			// tickets, but they would have failed from the start.
			// Sessions that expire do this too (a client drops a TLS 1.3
			// ticket past its lifetime instead of offering it).
			re.Hint = "sessions offered again stopped resuming part-way through the case while fresh ones resumed: they outlived the server's session lifetime (a short one, such as nginx's ssl_session_timeout; tlsbench probe shows it), or the server's tickets became single-use (then try " + p.Words.Name("TicketReuse") + " single)"
		case singleUse && p.TicketReuse == tlsconf.ReuseMulti:
			re.Hint = "the server refused sessions it had already accepted once, as servers with single-use tickets do: try " + p.Words.Name("TicketReuse") + " single"
		case !re.Measured && p.Target.Addr != "":
			re.Hint = "the server may not issue or accept session tickets for this configuration, or lets them expire within seconds (see what it does about resumption, and the tickets' lifetime: tlsbench probe " + p.Target.Addr + ")"
		}
	}
	var se *measure.StallError
	if errors.As(err, &se) && se.Stage == "exchange" && p.Target.Addr != "" {
		req, _ := st.requestOf(&sideSpec{target: p.Target})
		request := p.Words.Name("Request")
		switch req {
		case client.RequestPing:
			se.Hint = "it does not echo the ping: leave out " + request + " to have it asked which request it answers, or use " + request + " http for an HTTP server"
		case client.RequestLine:
			se.Hint = "it does not answer a line: use " + request + " http for an HTTP server"
		default:
			se.Hint = fmt.Sprintf("it does not answer %s %s: try another %s", request, req, request)
		}
	}
}

// cipherNote says when a case got another cipher than it asked for (a
// TLS 1.3 server chooses the suite itself).
func cipherNote(c *Case, rec *results.Record) {
	if c.Cipher != "" && rec.Handshakes > 0 && rec.Cipher != c.Cipher {
		rec.Notes = append(rec.Notes, fmt.Sprintf("asked for cipher %s, negotiated %s", c.Cipher, rec.Cipher))
	}
}
