package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/childproc"
	"github.com/tlsbench/tlsbench/internal/procid"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/profile"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// builtin is the server of a group of cases: the built-in one in a child
// process or in this one, or an external target.
type builtin struct {
	dialer   client.Dialer
	observer measure.ServerObserver
	stop     func() error
	closed   bool
	// quicAddr is the built-in server's QUIC address (UDP host:port),
	// when it serves QUIC.
	quicAddr string
	// origin is what a proxy is asked to CONNECT to (host:port), and
	// proxy the proxy of the case in progress (nil: none).
	origin string
	proxy  *proxyRun
	// sides are the servers of the other sides of an interleaved run
	// (b, then a2), closed with this one; build names the program of a
	// child server that said which it is (Hello.Build).
	sides []*builtin
	build string
	// child is the built-in server's child process, profiled on
	// request; nil for a server in this process or a target.
	child profile.Child
}

// close stops the proxy, the server and the other sides' servers once.
func (b *builtin) close() error {
	perr := b.proxy.close()
	b.proxy = nil
	var serr []error
	for _, o := range b.sides {
		serr = append(serr, o.close())
	}
	b.sides = nil
	if b.closed || b.stop == nil {
		return errors.Join(append(serr, perr)...)
	}
	b.closed = true
	return errors.Join(append(serr, b.stop(), perr)...)
}

// childPlumbing starts the child server: the program (default: this
// one), its arguments (default ["serve"]) and environment.
type childPlumbing struct {
	Executable   string
	Args         []string
	Env          []string
	Instructions bool // under callgrind
}

// where says where the built-in server runs.
type where int

const (
	inChild    where = iota // a child process, over loopback TCP
	inProcess               // this process, over loopback TCP (no separate CPU)
	overMemory              // this process, over in-memory pipes
)

// benchmarkMaxConns is the connection cap of the built-in server a run
// starts for peak connections open at once, over TCP or QUIC (the cap
// counts both, and a plan's cases run one at a time): never below twice that
// (the server may not yet have seen the last wave's connections close
// when the next one connects), nor below the server's own default, so
// that the cap never limits a benchmark; past the descriptor limit,
// that limit is what the case meets, as without a cap.
func benchmarkMaxConns(peak int) int {
	return min(max(server.DefaultMaxConns(), 2*peak+64), server.MaxMaxConns)
}

// peakConns is the most connections a case of p opens at once: the
// largest concurrency, or the open-loop cases' in-flight cap.
func (p *Plan) peakConns() int {
	n := slices.Max(append([]int{1}, p.Concurrency...))
	if len(p.Rates) > 0 || p.FindRate != nil {
		n = max(n, p.inflightCap())
	}
	return n
}

// startBuiltin starts the built-in server with opts, for every mode: in
// a child process (the default, so the OS accounts its CPU apart), in
// this process, or behind in-memory pipes. describe names it in the
// notice.
func startBuiltin(ctx context.Context, opts server.Options, at where, child childPlumbing, notice func(string), describe string) (*builtin, error) {
	if opts.Listen == "" {
		opts.Listen = defaultListen
	}
	switch at {
	case overMemory:
		srv, err := server.NewFromOptions(opts)
		if err != nil {
			return nil, err
		}
		sctx, cancel := context.WithCancel(ctx)
		return &builtin{
			dialer:   MemoryDialer{Server: srv, Ctx: sctx},
			observer: InProcessServer{Server: srv},
			stop:     func() error { cancel(); return nil },
		}, nil
	case inProcess:
		return startInProcess(ctx, opts)
	}
	exe, env, self, err := child.program("the server")
	if err != nil {
		return nil, err
	}
	args := child.Args
	if args == nil {
		args = []string{server.ChildCommand}
	}
	c, err := server.StartChild(ctx, server.ChildOptions{Path: exe, Args: args, Env: env, Server: opts, Instructions: child.Instructions})
	if errors.Is(err, childproc.ErrUnsupported) {
		return nil, plan.Errorf(nil, nil, "%v; use %s memory or %s", err, plan.Settings.Transport, plan.Settings.Target)
	}
	if err != nil {
		return nil, notDispatched(err, self, args[0])
	}
	if notice != nil {
		where := c.Hello().Addr
		if q := c.Hello().QUICAddr; q != "" {
			where += " (QUIC: udp " + q + ")"
		}
		notice(fmt.Sprintf("built-in server (%s) pid %d on %s", describe, c.PID(), where))
	}
	return &builtin{
		quicAddr: c.Hello().QUICAddr,
		dialer:   &childDialer{Dialer: client.TCPDialer{Addr: c.Hello().Addr}, child: c},
		origin:   originTarget(c.Hello().Addr, ""),
		observer: ChildServer{Child: c},
		stop:     c.Close,
		build:    c.Hello().Build,
		child:    c,
	}, nil
}

// Profiles is Plan.Profile's and ThroughputPlan.Profile's type: where
// the profiles of each case's measured iterations go (package profile
// takes them).
type Profiles = profile.Settings

// profiles is the profile of case name's measured iterations on side
// side ("" alone): this process when client is set, the child server
// and the built-in proxy's child when there are. Nil when the run takes
// no profiles.
func (b *builtin) profiles(pr profile.Settings, name, side string, client bool) *profile.Case {
	var proxy profile.Child
	if b.proxy != nil {
		proxy, _ = b.proxy.child.(profile.Child)
	}
	return pr.Case(name, side, client, b.child, proxy)
}

// startInProcess serves opts from this process on a loopback socket.
func startInProcess(ctx context.Context, opts server.Options) (*builtin, error) {
	srv, err := server.NewFromOptions(opts)
	if err != nil {
		return nil, err
	}
	ln, err := server.Listen(ctx, opts.Listen)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(sctx, ln) }()
	return &builtin{
		dialer:   client.TCPDialer{Addr: ln.Addr().String()},
		origin:   originTarget(ln.Addr().String(), ""),
		observer: InProcessServer{Server: srv},
		stop: func() error {
			cancel()
			return <-done
		},
	}, nil
}

// mode is what differs between handshake and throughput runs: how a
// group's server starts, how a case runs, and which errors fail one case
// while the run goes on.
type mode interface {
	startServer(ctx context.Context, c *Case) (*builtin, error)
	// runCase returns the case's records: one, or one per side of an
	// interleaved run.
	runCase(ctx context.Context, c *Case, index, total int, srv *builtin) ([]*results.Record, error)
	notRunnable(c *Case) []*results.Record
	targeted() bool
}

// runCases runs cases, one built-in server per group of cases that agree
// on the server's axes, and emits each record as soon as it is measured.
// Cases that fail are collected into *FailedCases while the others run;
// ctx's end stops the run with the case in progress emitted.
func runCases(ctx context.Context, cases []Case, m mode, emit func(*results.Record) error) error {
	var failed []error
	for i := 0; i < len(cases); {
		j := i + 1
		for j < len(cases) && plan.SameServer(&cases[i], &cases[j]) {
			j++
		}
		errs, err := runGroup(ctx, cases, i, j, m, emit)
		if err != nil {
			return err
		}
		failed = append(failed, errs...)
		i = j
	}
	if len(failed) > 0 {
		return &FailedCases{Errs: failed}
	}
	return nil
}

// runGroup runs cases[i:j] against one server.
func runGroup(ctx context.Context, cases []Case, i, j int, m mode, emit func(*results.Record) error) (failed []error, err error) {
	var srv *builtin
	defer func() {
		if srv != nil {
			if cerr := srv.close(); cerr != nil && err == nil && ctx.Err() == nil {
				err = cerr
			}
		}
	}()
	for k := i; k < j; k++ {
		c := &cases[k]
		if c.NotRunnable != "" {
			for _, rec := range m.notRunnable(c) {
				if err := emit(rec); err != nil {
					return nil, err
				}
			}
			continue
		}
		if srv == nil {
			if srv, err = m.startServer(ctx, c); err != nil {
				srv = nil
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return nil, &ServerStartError{Target: m.targeted(), Err: err}
			}
		}
		if err := ensureProxy(ctx, m, srv, c); err != nil {
			return nil, err
		}
		recs, err := srv.guardCase(ctx, c.Name, func(ctx context.Context) ([]*results.Record, error) {
			return m.runCase(ctx, c, k+1, len(cases), srv)
		})
		for _, rec := range recs {
			if eerr := emit(rec); eerr != nil {
				return nil, eerr
			}
		}
		if err != nil {
			if ctx.Err() == nil && isCaseFailure(err) {
				failed = append(failed, err)
				continue
			}
			var died *ServerDiedError
			if errors.As(err, &died) {
				died.NotRun = len(cases) - k - 1
			}
			return nil, err
		}
	}
	return failed, nil
}

// isCaseFailure tells a failure of one case, after which the run goes on,
// from a failure of the run.
func isCaseFailure(err error) bool {
	var (
		re *measure.ResumptionError
		ce *measure.CaseError
		ie *measure.IdentityError
		ee *measure.ErrorRateError
		se *measure.StallError
		te *loadgen.ThroughputError
		pd *ProxyDiedError
		pr *measure.ProxyResumedError
		ra *measure.RateError
		me *measure.MixError
		ed *measure.EarlyDataError
		su *measure.ServerUnusedError
	)
	return errors.As(err, &re) || errors.As(err, &ce) || errors.As(err, &ie) || errors.As(err, &ee) ||
		errors.As(err, &se) || errors.As(err, &te) || errors.As(err, &pd) || errors.As(err, &pr) || errors.As(err, &ra) ||
		errors.As(err, &me) || errors.As(err, &ed) || errors.As(err, &su)
}

// notRunnableRecord is the record of a case that cannot be measured: its
// parameters and the reason, no figures.
func notRunnableRecord(c *Case, base results.Record) *results.Record {
	rec := base
	rec.Name, rec.Kind, rec.TLSVersion = c.Name, c.Mode, tlsconf.VersionName(c.Version)
	rec.Resume, rec.Mutual, rec.Concurrency = c.Resume, c.Mutual, c.Concurrency
	if c.Mode == ModeThroughput {
		// Throughput records name the cipher of the case; handshake
		// records the one negotiated, and nothing was.
		rec.Cipher, rec.BufferBytes, rec.Direction = c.Cipher, c.Buffer, c.Direction
	}
	rec.Transport = TransportTCP
	c.Record(&rec)
	rec.Notes = append(rec.Notes, c.NotRunnable)
	return &rec
}

// withServerPeer is env naming the server process pid (when it can tell
// which program it is), as results name their peers.
func withServerPeer(env results.Env, pid int) *results.Env {
	if pid <= 0 {
		return &env
	}
	if name, v, err := procid.Identify(pid); err == nil && v != "" {
		env = env.WithPeer(name, v)
	}
	return &env
}
