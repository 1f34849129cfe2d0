package loadgen

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/counts"

	"github.com/tlsbench/tlsbench/internal/connerr"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// SaturationShare is the share of GOMAXPROCS the client may use before a
// case is flagged as measuring the load generator rather than the server.
const SaturationShare = 0.9

// connResult is the outcome of one connection.
type connResult struct {
	client  int // index into Clients
	ok      bool
	stage   string // where a failed connection failed: connect, handshake, exchange
	resumed bool
	group   tls.CurveID
	cipher  uint16
	// latency is what the case's latency histogram records: the
	// client's handshake (from the dial with LatencyFromDial).
	latency time.Duration
	// The connection's phases (see phaseConn), set when phases is:
	// connect is the dial (negative over QUIC, which has none),
	// handshake from the first byte written to the end of the client's
	// handshake, firstByte from there to the first byte read after it
	// (negative when nothing was read), firstResponse from the dial to
	// the first byte of the answer to the request (negative when none
	// was read).
	phases                                       bool
	connect, handshake, firstByte, firstResponse time.Duration
	// exchange is from the end of the handshake to the end of the
	// exchange after it (negative when not measured), and hsEnd when
	// the handshake ended: a wave's handshakes end with its last one
	// (see waveHandshakes).
	exchange time.Duration
	hsEnd    time.Time
	// quicVersion names the QUIC version of a QUIC connection ("" over
	// TCP), early what became of its early data, and earlyLate that
	// early data was accepted but the request went after the handshake
	// (see quicConn.result).
	quicVersion string
	early       earlyOutcome
	earlyLate   bool
	// work is the CPU time the connection's own goroutine measured from
	// its handshake's start to its end (in a mix: see partCPU);
	// workLost that part of it could not be measured.
	work     time.Duration
	workLost bool

	errKind string
	err     error
}

// iterResult aggregates one iteration.
type iterResult struct {
	wall      time.Duration
	ok        int64
	resumed   int64
	failures  map[string]int64
	firstErr  error
	firstKind string
	groups    map[tls.CurveID]int64
	ciphers   map[uint16]int64
	perClient map[int]int64 // successful handshakes by client index
	failedBy  map[int]int64 // failed connections by client index
	// quicVersions counts QUIC handshakes by version, and early the
	// early data of successful connections (QUIC cases).
	quicVersions map[string]int64
	early        earlyCounts
	// open is an open-loop window's schedule and timing (nil in closed
	// loop); in the totals, the kept windows' together.
	open *windowStats

	// handshakes is the part of wall up to the end of each wave's last
	// successful handshake (closed loop): the iteration's time without
	// the exchanges that ended its waves (see waveHandshakes).
	handshakes time.Duration
}

// RunHandshakes measures hc and returns its record. The record is returned
// also with an error when measuring stopped part-way (ctx cancelled; every
// handshake of an iteration failed; a wave stalled) or when the measured
// iterations failed a gate (a ResumptionError with Measured set, an
// ErrorRateError, an IdentityError, a MixError): what was measured is kept, and a
// record that failed a gate says so in Verdict and Notes. A warm-up that
// did not resume enough comes as a ResumptionError with a nil record, one
// whose failures exceeded the maximum error rate as an ErrorRateError
// with Warmup set, also without a record, as does a MixError with
// Warmup set.
func RunHandshakes(ctx context.Context, hc HandshakeCase) (*results.Record, error) {
	if err := hc.setDefaults(); err != nil {
		return nil, err
	}
	r := &caseRunner{hc: &hc}
	defer r.startWorkers()()

	if hc.Resume {
		if err := r.prime(ctx); err != nil {
			return nil, err
		}
	}
	if err := r.waitStart(ctx); err != nil {
		return nil, err
	}
	if err := r.warmup(ctx); err != nil {
		return nil, err
	}
	m, err := r.measure(ctx)
	if err != nil {
		return nil, err
	}
	defer m.release() // the record holds encodings, not histograms
	rec, err := r.finish(ctx, m, r.summarise(m))
	return rec, hc.listenFailure(err, &m.meter.listen, rec)
}

var errNoServer = errors.New("no server snapshot")

// resumptionCheck returns a ResumptionError when resumed/total is below
// the minimum, with the server's own counts since before (when both
// snapshots succeeded).
func (hc *HandshakeCase) resumptionCheck(resumed, total int64, before ServerSnapshot, beforeErr error) *ResumptionError {
	rate := ratio(resumed, total)
	if hc.MinResumption == nil || rate >= *hc.MinResumption {
		return nil
	}
	e := &ResumptionError{Case: hc.Name, Resumed: resumed, Total: total, Rate: rate, Required: *hc.MinResumption,
		Setting: hc.Words.Name("MinResumption")}
	// Behind a proxy the server's counts are the proxy–origin leg's: they
	// would not explain the client's.
	if hc.Server != nil && hc.Proxy == nil && beforeErr == nil {
		if after, err := hc.Server.Snapshot(); err == nil && after.HasCounts {
			e.HasServerCounts = true
			e.ServerResumed = after.Resumed - before.Resumed
			e.ServerHandshake = after.Handshakes - before.Handshakes
			e.ServerDeclined = counts.Sub(after.Declined, before.Declined)
		}
	}
	return e
}

type caseRunner struct {
	hc   *HandshakeCase
	next int // index of the next connection, for client rotation
	// work feeds the case's worker goroutines. They live as long as the
	// case, so their stacks, grown by the first handshake, stay grown: a
	// fresh goroutine per connection costs a measurable share of a
	// handshake's client CPU in stack growth alone.
	work chan func()
	// budget, when set, counts the failures of the phase in progress
	// against the maximum error rate (see failureBudget).
	budget *failureBudget
	// conns holds the phaseConn wrappers of finished connections for
	// reuse; phases, when set, receives the phases of the connections
	// tally counts with a latency histogram (the measured iteration in
	// progress).
	conns  sync.Pool
	phases *clientPhases
	// open is the schedule's state in an open-loop case (nil otherwise).
	open *openState
	// until ends a timed closed-loop iteration (zero: none).
	until time.Time
	// full, in a mix, are the clients' configurations for connections
	// that do not offer a session, and offer those for connections that
	// do once priming is over, which count in dry the offers that found
	// no session (see clientFor).
	full, offer []*tls.Config
	dry         atomic.Int64
	// late is how long after StartAt the warm-up began.
	late time.Duration
}

// startWorkers starts the concurrency-1 workers a wave needs besides the
// calling goroutine; stop ends them.
func (r *caseRunner) startWorkers() (stop func()) {
	if r.hc.Rate > 0 {
		r.open = newOpenState(r.hc)
		return r.open.stop
	}
	r.work = make(chan func())
	for range r.hc.Concurrency - 1 {
		go func() {
			for f := range r.work {
				f()
			}
		}()
	}
	return func() { close(r.work) }
}

// isStop reports the errors that stop a case and already name it.
func isStop(err error) bool {
	var ce *CaseError
	var se *StallError
	var ee *ErrorRateError
	return errors.As(err, &ce) || errors.As(err, &se) || errors.As(err, &ee)
}

// conns counts the connections the iteration made: a timed iteration
// (Duration) makes as many as its time allows.
func (it iterResult) conns() int {
	n := it.ok
	for _, v := range it.failures {
		n += v
	}
	return int(n)
}

func newIterResult() iterResult {
	return iterResult{failures: map[string]int64{}, groups: map[tls.CurveID]int64{}, ciphers: map[uint16]int64{}, perClient: map[int]int64{}, failedBy: map[int]int64{},
		quicVersions: map[string]int64{}}
}

// prime fills the session cache so that every handshake of the first
// warm-up wave has a session to offer. Priming handshakes deposit their
// session but never take one: were they to resume, a handshake that
// finished early would hand its fresh ticket to one starting late in the
// same wave, and an identity would end with fewer sessions than a wave
// asks of it at once, so that single-use tickets run short at random.
// One round covers every identity as often as a wave uses it.
func (r *caseRunner) prime(ctx context.Context) error {
	hc := r.hc
	r.full = mixClients(hc)
	saved := hc.Clients
	defer func() { hc.Clients = saved }()
	hc.Clients = make([]*tls.Config, len(saved))
	for i, c := range saved {
		hc.Clients[i] = c.Clone()
		hc.Clients[i].ClientSessionCache = depositOnly{c.ClientSessionCache}
	}
	n := max(hc.primeWave(), len(saved))
	n += (len(saved) - n%len(saved)) % len(saved) // whole rounds of identities
	if hc.Rate > 0 {
		// An open-loop case has no waves (nor their workers): it primes
		// one connection at a time.
		defer func(c int) { hc.Concurrency = c }(hc.Concurrency)
		hc.Concurrency = 1
	}
	next := r.next
	_, err := r.iteration(ctx, n, nil)
	r.next = next // measured waves start where they would have
	if r.full != nil {
		r.offer = watchDry(saved, &r.dry)
	}
	return err
}

// depositOnly is a session cache that stores sessions but offers none.
type depositOnly struct{ tls.ClientSessionCache }

func (depositOnly) Get(string) (*tls.ClientSessionState, bool) { return nil, false }

func (r *caseRunner) progress(warm bool, i, of int, it iterResult) {
	if r.hc.Progress == nil {
		return
	}
	p := Progress{Case: r.hc.Name, Warmup: warm, Iteration: i, Of: of}
	if it.wall > 0 {
		p.HandshakesPerSec = float64(it.ok) / it.wall.Seconds()
	}
	r.hc.Progress(p)
}

// iteration runs n handshakes in waves of hc.Concurrency and records the
// successful handshakes' latencies in lat (when not nil). A timed
// iteration (r.until) makes at least one wave, so that it always has
// connections to count even when a pause of the machine let its window
// end before the first. It stops between waves once ctx ends: against a
// target that refuses, a wave takes microseconds and a timed iteration
// would otherwise make them until its window ends, a CPU spent for
// nothing after the user asked to stop.
func (r *caseRunner) iteration(ctx context.Context, n int, lat *stats.Latency) (iterResult, error) {
	hc := r.hc
	out := newIterResult()
	res := make([]connResult, hc.Concurrency)
	var wg sync.WaitGroup
	start := time.Now()
	for done := 0; done < n && (done == 0 || !r.windowOver()) && ctx.Err() == nil; {
		wave := min(hc.Concurrency, n-done)
		waveStart := time.Now()
		for j := 0; j < wave; j++ {
			client := r.next % len(hc.Clients)
			r.next++
			run := func() {
				res[j] = r.connect(ctx, r.clientFor(client, done+j))
				res[j].client = client
			}
			if j == wave-1 {
				// The last connection of a wave runs in this goroutine:
				// at concurrency 1 the harness adds no hand-off per
				// handshake to the client's CPU.
				run()
				break
			}
			wg.Add(1)
			r.work <- func() {
				defer wg.Done()
				run()
			}
		}
		wg.Wait()
		if ctx.Err() == nil {
			if e := hc.stalled(res[:wave]); e != nil {
				return out, e
			}
		}
		for _, c := range res[:wave] {
			r.tally(&out, c, lat)
		}
		out.handshakes += waveHandshakes(waveStart, res[:wave])
		done += wave
		if e := hc.lost(r.budget); e != nil {
			out.wall = time.Since(start)
			return out, e
		}
	}
	out.wall = time.Since(start)
	if out.ok == 0 {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		return out, hc.noneSucceeded(out)
	}
	return out, nil
}

// tally counts one finished connection into the iteration's result and
// the error budget, and records its latency in lat (when not nil). Every
// way of scheduling connections accounts for them here.
func (r *caseRunner) tally(out *iterResult, c connResult, lat *stats.Latency) {
	if r.budget != nil {
		r.budget.add(c)
	}
	if !c.ok {
		out.failures[c.errKind]++
		out.failedBy[c.client]++
		if out.firstErr == nil {
			out.firstErr, out.firstKind = c.err, c.errKind
		}
		return
	}
	out.ok++
	if c.resumed {
		out.resumed++
	}
	out.groups[c.group]++
	out.ciphers[c.cipher]++
	out.perClient[c.client]++
	if c.quicVersion != "" {
		out.quicVersions[c.quicVersion]++
	}
	out.early.count(c.early, c.earlyLate)
	if lat != nil {
		lat.Record(c.latency)
		if r.phases != nil {
			r.phases.record(&c)
		}
	}
}

// connect runs one connection: dial, timed handshake, exchange, abortive
// close.
func (r *caseRunner) connect(ctx context.Context, cfg *tls.Config) connResult {
	hc := r.hc
	if hc.QUIC != nil {
		return r.connectQUIC(ctx, cfg)
	}
	dialed := time.Now()
	deadline := dialed.Add(hc.ConnTimeout)
	raw, err := hc.Dialer.Dial(ctx, deadline)
	if err != nil {
		return connResult{stage: "connect", errKind: connerr.Kind(err), err: err}
	}
	connected := time.Now()
	defer client.AbortiveClose(raw)
	// The connection's deadline bounds it, and ending ctx moves the
	// deadline to now. This costs less than a context per connection,
	// for which crypto/tls would start a goroutine per handshake: the
	// harness's own CPU is part of what BENCHMARKS.md bounds.
	raw.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { raw.SetDeadline(time.Now()) })
	defer stop()
	var under net.Conn = raw
	pc := r.wrap(raw)
	if pc != nil {
		defer r.conns.Put(pc)
		under = pc
	}
	tc := tls.Client(under, cfg)
	if pc != nil && r.full != nil {
		// A mix splits the client's CPU between its parts by what each
		// connection's own work took (see partCPU).
		pc.Measure = true
		pc.Work.Resume()
	}
	t0 := time.Now()
	if hc.LatencyFromDial || hc.Rate > 0 {
		// In open loop this is the service time, from the actual
		// start: the window adds the wait since the intended one.
		t0 = dialed
	}
	err = tc.Handshake()
	end := time.Now()
	took := end.Sub(t0)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return connResult{stage: "handshake", errKind: connerr.Kind(err), err: fmt.Errorf("handshake: %w", err)}
	}
	if pc != nil {
		pc.Watching = true
	}
	if err := hc.Exchange(tc); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		kind := connerr.Kind(err)
		if errors.Is(err, client.ErrBadEcho) {
			kind = "bad-echo"
		}
		return connResult{stage: "exchange", errKind: kind, err: fmt.Errorf("after handshake: %w", err)}
	}
	exchanged := time.Now()
	st := tc.ConnectionState()
	res := connResult{ok: true, resumed: st.DidResume, group: st.CurveID, cipher: st.CipherSuite, latency: took,
		hsEnd: end, exchange: exchanged.Sub(end)}
	if pc != nil {
		pc.Work.Pause()
		res.work, res.workLost = pc.Work.CPU, pc.Work.Lost > 0
		res.phases, res.connect, res.handshake, res.firstByte, res.firstResponse = true, connected.Sub(dialed), end.Sub(pc.Wrote), -1, -1
		if !pc.FirstRead.IsZero() {
			res.firstByte = pc.FirstRead.Sub(end)
		}
		if !pc.Answer.IsZero() {
			res.firstResponse = pc.Answer.Sub(dialed)
		}
	}
	return res
}
