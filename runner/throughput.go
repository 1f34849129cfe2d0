package runner

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/internal/tempdir"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/profile"
	"github.com/tlsbench/tlsbench/proxy"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// ThroughputPlan is what a throughput run (tlsbench run --mode
// throughput) measures: the cross product of Versions x Ciphers x
// Directions x Buffers x Concurrency x KTLS, against the built-in server,
// each case moving Bytes per connection and direction, or data for
// Duration, per iteration.
type ThroughputPlan struct {
	Versions    []uint16
	Ciphers     []string      // ktls.CipherAES128GCM, ...
	Buffers     []int         // application read/write sizes in bytes
	KTLS        []ktls.Mode   // off, auto, on
	Directions  []string      // loadgen.DirectionDownload, ...
	Concurrency []int         // parallel connections
	Bytes       int64         // per connection and direction per iteration
	Duration    time.Duration // per iteration; exactly one of Bytes and Duration
	// Source is a file the server sends instead of the generated stream
	// (--source file:PATH; download only).
	Source string
	// KeyType of the server's certificate (default DefaultKeyType).
	KeyType pki.KeyType
	// Request is the wire: RequestBulk (the default; RequestHTTP with a
	// proxy given by URL, since a bumping HTTP proxy parses what it
	// relays) or RequestHTTP (GET downloads, POST uploads; not both at
	// once).
	Request string
	// Proxy, when set, is the proxy the client connects through to the
	// built-in server. With a proxy, KTLS is the proxy's on both its
	// legs, and Buffers its relay buffer too; ReadFill lists the built-in
	// proxy's read-fill settings, one case each.
	Proxy    Proxy
	ReadFill []bool

	Iterations  int
	Warmup      int
	CaseTime    time.Duration // measured time limit per case (0: none)
	ConnTimeout time.Duration
	// Words: as Plan.Words.
	Words client.Words

	// Server is the built-in server's base configuration (listen address,
	// handshake timeout); the run adds the identity, kTLS and the source.
	Server server.Options
	// InProcess runs the server in this process instead of a child: no
	// separate server CPU, for tests.
	InProcess bool
	// Executable, ChildArgs, ProxyArgs and ChildEnv start the child
	// server and proxy as in Plan.
	Executable string
	ChildArgs  []string
	ProxyArgs  []string
	ChildEnv   []string
	// Profile: as Plan.Profile.
	Profile Profiles

	Env      *results.Env
	Progress func(TransferProgress)
	Notice   func(string)
}

// TransferProgress reports progress within a throughput run.
type TransferProgress struct {
	Index, Total int // 1-based case index
	loadgen.ThroughputProgress
}

// Validate checks the plan before any work is done. Errors are
// *plan.Error naming the setting at fault and the fix. It probes the
// kernel once: KTLS on, on a kernel without kTLS, is refused here, before
// the run starts.
func (p *ThroughputPlan) Validate() error {
	for _, check := range []func() error{p.validateAxes, p.validateAmount, p.validateServer, p.Profile.Validate} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// validateAxes checks the values of the axes, then that some case
// can run.
func (p *ThroughputPlan) validateAxes() error {
	if err := p.matrix().CheckThroughput(); err != nil {
		return err
	}
	if err := p.validateProxy(); err != nil {
		return err
	}
	if cases := p.Cases(); !slices.ContainsFunc(cases, func(c Case) bool { return c.NotRunnable == "" }) {
		return cases[0].NotRunnableError()
	}
	return nil
}

// validateProxy checks the proxy, the wire, and the kTLS asked of them.
func (p *ThroughputPlan) validateProxy() error {
	if err := p.Proxy.validate(p.ReadFill, nil, false, nil); err != nil {
		return err
	}
	if p.request() == RequestHTTP && slices.Contains(p.KTLS, ktls.ModeOn) && p.Proxy.URL == "" {
		return plan.Errorf(plan.Settings.KTLS, nil, "%s http runs in user-space TLS: %s on cannot be measured over it; use %s bulk, or %s off or auto", plan.Settings.Request, plan.Settings.KTLS, plan.Settings.Request, plan.Settings.KTLS)
	}
	if p.Proxy.builtin() {
		for _, b := range p.Buffers {
			if b < proxy.MinBuffer {
				return plan.Errorf(plan.Settings.Buffer, b, "the built-in proxy's relay buffer is at least %d bytes", proxy.MinBuffer)
			}
		}
	}
	if p.Proxy.URL != "" && !p.Proxy.builtin() && !slices.Equal(p.KTLS, []ktls.Mode{ktls.ModeOff}) {
		return plan.Errorf(plan.Settings.KTLS, nil, "with a proxy %s is the proxy's own, and a proxy given by URL keeps its configuration (client and server run user-space TLS): leave out %s, or give off", plan.Settings.KTLS, plan.Settings.KTLS)
	}
	return nil
}

// request is the wire in effect: bulk, or http by default through a
// proxy given by URL.
func (p *ThroughputPlan) request() string {
	if p.Request == "" && p.Proxy.URL != "" && !p.Proxy.builtin() {
		return RequestHTTP
	}
	return p.Request
}

// validateAmount checks how much each case moves and how often.
func (p *ThroughputPlan) validateAmount() error {
	return plan.CheckThroughputAmount(p.Bytes, p.Duration, p.Iterations, p.Warmup)
}

// validateServer checks what the built-in server is asked to do: send a
// file, require client certificates, use kTLS.
func (p *ThroughputPlan) validateServer() error {
	if err := plan.CheckSource(p.Source, p.Directions); err != nil {
		return err
	}
	if p.Server.Mutual {
		return plan.Errorf(plan.Settings.Mutual, nil, "%s applies to handshake cases; throughput cases run without client certificates", plan.Settings.Mutual)
	}
	if len(p.Server.Identities) > 0 {
		// Given identities are verified with the CA beside them.
		if _, err := givenCAFile(p.Server.Identities, "", false); err != nil {
			return err
		}
	}
	for _, m := range p.KTLS {
		if m == ktls.ModeOn {
			if _, _, err := m.Decide(); err != nil {
				return plan.Errorf(plan.Settings.KTLS, nil, "%s on: %v; use %s auto to fall back to user-space TLS, or run on a kernel with kernel TLS (built with CONFIG_TLS, its module loaded: modprobe tls)", plan.Settings.KTLS, err, plan.Settings.KTLS)
			}
		}
	}
	return nil
}

// Cases expands the matrix in the order it runs: version, cipher,
// direction, buffer, concurrency, and kTLS innermost, so that the kTLS
// variants of a cell sit next to each other in the report.
func (p *ThroughputPlan) Cases() []Case { return p.matrix().Cases() }

// matrix is the plan's axes, its key type defaulted.
func (p *ThroughputPlan) matrix() *plan.Matrix {
	kt := p.KeyType
	if kt == "" {
		kt = DefaultKeyType
	}
	return &plan.Matrix{
		Mode:        ModeThroughput,
		Versions:    p.Versions,
		Mutual:      false,
		Keys:        []pki.KeyType{kt},
		Ciphers:     p.Ciphers,
		Buffers:     p.Buffers,
		Directions:  p.Directions,
		KTLS:        p.KTLS,
		Concurrency: p.Concurrency,
		File:        p.Source != "",
		Proxy:       p.Proxy.URL,
		Request:     p.request(),
		ReadFill:    p.ReadFill,
	}
}

// Run measures every case of p against the built-in server and passes
// each record to emit as soon as it is measured. A case that is not
// runnable is emitted as a record with no measurements and a note that
// says why. Cases that fail (corrupted data, a failed connection, --ktls
// on refused by one end) are collected into *FailedCases while the others
// run; ctx's end stops the run with the case in progress emitted.
func (p ThroughputPlan) Run(ctx context.Context, emit func(*results.Record) error) error {
	if err := p.Validate(); err != nil {
		return err
	}
	tr := &tpRun{plan: &p, env: results.CurrentEnv()}
	if p.Env != nil {
		tr.env = *p.Env
	}
	// Named with this process's ID: a later run removes it if this one
	// is killed before its deferred removal.
	dir, _, err := tempdir.Make("tlsbench-run-")
	if err != nil {
		return fmt.Errorf("temporary directory: %w", err)
	}
	defer tempdir.Remove(dir)
	tr.st = &runState{dir: dir}
	if tr.st.url, err = prepareProxy(ctx, p.Proxy); err != nil {
		return err
	}
	if tr.st.ca, err = pki.NewCA(); err != nil {
		return err
	}
	return runCases(ctx, p.Cases(), tr, emit)
}

// tpRun is a throughput run: the mode of runCases for throughput cases.
type tpRun struct {
	plan   *ThroughputPlan
	env    results.Env
	st     *runState // the run's CA and directory
	client *tls.Config
}

func (tr *tpRun) targeted() bool { return false }

func (tr *tpRun) notRunnable(c *Case) []*results.Record {
	if tr.plan.Notice != nil {
		tr.plan.Notice(c.Name + ": " + c.NotRunnable)
	}
	return []*results.Record{notRunnableRecord(c, results.Record{Env: tr.env})}
}

func (tr *tpRun) runCase(ctx context.Context, c *Case, index, total int, srv *builtin) ([]*results.Record, error) {
	rec, err := tr.runOne(ctx, c, index, total, srv)
	return compact([]*results.Record{rec}), err
}

func (tr *tpRun) runOne(ctx context.Context, c *Case, index, total int, srv *builtin) (*results.Record, error) {
	p := tr.plan
	base := results.Record{Env: tr.env}
	c.Record(&base)
	client, kt := tr.client, c.KTLS
	if srv.proxy != nil {
		// The client talks TLS with the proxy, whose minted certificate
		// it trusts; kTLS is the proxy's, client and server run
		// user-space TLS.
		client = client.Clone()
		client.RootCAs, kt = srv.proxy.roots, ktls.ModeOff
	}
	tc := loadgen.ThroughputCase{
		Name: c.Name, Version: c.Version, Cipher: c.Cipher, Buffer: c.Buffer, Direction: c.Direction,
		Bytes: p.Bytes, Duration: p.Duration, Concurrency: c.Concurrency,
		Iterations: p.Iterations, Warmup: p.Warmup, MaxDuration: p.CaseTime,
		KTLS: kt, Client: client, Dialer: srv.caseDialer(), Server: srv.observer, Proxy: srv.proxyObserver(),
		ConnTimeout: p.ConnTimeout, Record: base, Words: p.Words,
	}
	if c.Request == RequestHTTP {
		tc.Request = loadgen.ThroughputRequestHTTP
	}
	if p.Source != "" {
		tc.Source = &loadgen.FileSource{Path: p.Source, Index: 1}
	}
	if p.Progress != nil {
		tc.Progress = func(pr loadgen.ThroughputProgress) {
			p.Progress(TransferProgress{Index: index, Total: total, ThroughputProgress: pr})
		}
	}
	prof := srv.profiles(p.Profile, c.Name, "", true)
	tc.Measuring = prof.Hook()
	rec, err := loadgen.RunThroughput(ctx, tc)
	profile.Notes([]*results.Record{rec}, []*profile.Case{prof})
	if rec != nil {
		rec.Params = c.Params
		c.Record(rec)
		proxyNote(c, rec)
	}
	var te *loadgen.ThroughputError
	if err != nil && ctx.Err() == nil && errors.As(err, &te) && p.Notice != nil {
		p.Notice("FAILED " + err.Error())
	}
	return rec, err
}

// wantsKTLS reports whether any case may switch to kTLS, in which case
// the server is started ready for it (server.WithKTLS); otherwise it runs
// without the key log and the record-exact reader. Through a proxy kTLS
// is the proxy's: the server runs user-space TLS.
func (p *ThroughputPlan) wantsKTLS() bool {
	if p.Proxy.URL != "" {
		return false
	}
	for _, m := range p.KTLS {
		if use, _, _ := m.Decide(); use {
			return true
		}
	}
	return false
}

// startServer issues the server's identity from the run's CA and starts
// the built-in server (a child process unless InProcess).
func (tr *tpRun) startServer(ctx context.Context, c *Case) (*builtin, error) {
	p := tr.plan
	opts := p.Server
	configureServer(c, &opts)
	if opts.MaxConns == 0 {
		opts.MaxConns = benchmarkMaxConns(slices.Max(append([]int{1}, p.Concurrency...)))
	}
	if len(opts.Identities) == 0 {
		files, err := tr.st.writeServerIdentity(c.KeyType)
		if err != nil {
			return nil, err
		}
		opts.Identities = []server.IdentityFiles{files}
	}
	opts.KTLS = p.wantsKTLS()
	if p.Source != "" {
		abs, err := filepath.Abs(p.Source)
		if err != nil {
			return nil, err
		}
		opts.Sources = []string{abs}
	}
	roots := tr.st.ca.Pool()
	if len(p.Server.Identities) > 0 {
		// The server's identity was given: it is verified with the CA
		// it came with, as in handshake cases.
		var err error
		if roots, err = givenRoots(p.Server.Identities, "", false); err != nil {
			return nil, err
		}
	}
	tr.client = tlsconf.Client(tlsconf.ClientOptions{RootCAs: roots, ServerName: "localhost"})
	at := inChild
	if p.InProcess {
		at = inProcess
	}
	child := childPlumbing{Executable: p.Executable, Args: p.ChildArgs, Env: p.ChildEnv}
	return startBuiltin(ctx, opts, at, child, p.Notice, fmt.Sprintf("%s, kTLS-ready %v", c.KeyType, opts.KTLS))
}
