package loadgen

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"github.com/tlsbench/tlsbench/internal/counts"
	"math"
	"net"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tlsbench/tlsbench/internal/connerr"
	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/usage"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// HandshakeCase is one handshake benchmark case.
type HandshakeCase struct {
	// Name is the case name in results, e.g. handshake/tls1.3/resume/c64.
	Name string
	// Version is the TLS version the clients are pinned to.
	Version uint16
	// Resume says the clients offer cached sessions; every client config
	// must then have a ClientSessionCache, and none otherwise.
	Resume bool
	// ResumeRatio, when set, makes the case a mix: that share (0 to 1)
	// of each iteration's (or window's) connections offers a session,
	// spread evenly, and the rest make full handshakes (Resume must be
	// set). Each iteration's resumed share, as the client and the server
	// count it, must match it to one connection, or the case fails
	// (MixError); MinResumption does not apply. Nil: not a mix.
	ResumeRatio *float64
	Mutual      bool
	// Concurrency is the size of a wave of simultaneous handshakes.
	Concurrency int
	// Handshakes per iteration (default 128); in open loop, the
	// connections a window schedules when Duration is not set.
	Handshakes int
	// Rate, when above 0, makes the case open-loop: connections start
	// on a schedule at Rate starts per second, each iteration a window
	// of equal length (see window), and Concurrency is not used.
	Rate float64
	// Arrival is the schedule's shape: results.ArrivalConstant (the
	// default) or results.ArrivalPoisson, whose random arrivals are
	// seeded from the case name so that a case repeats its schedule.
	Arrival string
	// MaxInflight bounds the connections an open-loop case has open at
	// once (default DefaultMaxInflight).
	MaxInflight int
	// Duration, when set, is the measured time of the case: each of the
	// Iterations is a window of Duration/Iterations. In open loop a
	// window then schedules Rate × its length connections; in closed
	// loop waves run until the window ends.
	Duration time.Duration
	// Iterations measured and Warmup iterations discarded before them.
	Iterations int
	Warmup     int
	// MaxDuration stops measuring early (after at least two iterations)
	// once the measured iterations have taken this long; 0 means no limit.
	MaxDuration time.Duration
	// IterationsGiven says Iterations were asked for: all of them are
	// measured, and MaxDuration bounds only the iterations past them
	// (towards TargetError).
	IterationsGiven bool
	// TargetError, when above 0, keeps measuring past Iterations (then
	// the minimum) until the half-width of the 99.9% confidence interval
	// of the mean is at most TargetError of the mean (0.02: 2%), up to
	// MaxDuration, or results.MaxIterations without one. The record says
	// what ended the case (StoppedBy) and notes a target not reached.
	TargetError float64
	// MinResumption, when set, is the share of handshakes that must
	// resume in a resume case, in the warm-up and in every measured
	// iteration (DefaultMinResumption is tlsbench run's); nil, like 0,
	// requires nothing.
	MinResumption *float64
	// MaxErrorRate is the share of connections that may fail, 0..1
	// (DefaultMaxErrorRate is tlsbench run's), in the warm-up and in the
	// measured iterations: the zero value allows none, 1 any. A phase
	// stops as soon as its failures exceed the share of all the
	// connections it is to make.
	MaxErrorRate float64
	// TrackTicketUse counts, per iteration, the sessions offered for the
	// first time and those offered again, so that a resumption failure can
	// tell single-use tickets (first uses resume, reuses do not) from a
	// server that declines at random. For servers that cannot say what
	// they declined (external targets).
	TrackTicketUse bool
	// Clients are the client configurations; connection i uses
	// Clients[i % len(Clients)], so several client identities rotate.
	Clients []*tls.Config
	// ClientIdentities, when set, names the certificate each of Clients
	// presents, in the form the server counts (server.Counters.Identities:
	// the first 8 bytes of the SHA-256 thumbprint, hex). The server's count
	// per identity must then match the client's: a session resumed under
	// another identity than the one presented fails the case.
	ClientIdentities []string
	Dialer           Dialer
	// QUIC, when set, runs every connection over QUIC to its address
	// instead of through Dialer (which may then be nil), with its own
	// exchange: see QUICDialer. The case must be TLS 1.3.
	QUIC *QUICDialer
	// Exchange runs after each handshake (default PingPong).
	Exchange Exchange
	// LatencyFromDial starts each connection's latency when its dial
	// starts instead of when the client's handshake does: through a
	// proxy, the CONNECT is answered only after the proxy's own
	// handshake with the origin, which the case's handshake includes.
	LatencyFromDial bool
	// ConnTimeout bounds each connection from dial to close (default 10 s).
	ConnTimeout time.Duration
	// ListenQueue, when set, counts the machine's TCP listen-queue
	// overflows and drops over the case's iterations (see
	// listenqueue.go) and names, in its notes and errors, whose queue
	// they stand for: "the server's". Set it only when every listener the
	// connections reach is on this machine (the counters are the
	// machine's) and they are TCP.
	ListenQueue string
	// Server, when set, is asked for the server's own counts before and
	// after the measured iterations.
	Server ServerObserver
	// Proxy, when set, is the proxy the Dialer connects through, read
	// at the same boundaries as Server (see proxyFigures). The server's
	// counts then describe the proxy–origin leg: they are recorded, but
	// the gates judge the client's leg.
	Proxy ProxyObserver
	// Record holds the descriptive fields to copy into the result (key
	// type, transport, identities, env...); measurement fields are
	// overwritten.
	Record results.Record
	// Progress, when set, is called after every iteration.
	Progress func(Progress)
	// Measuring, when set, is called with true just before the first
	// measured iteration (after priming and the warm-up) and with false
	// just after the last: what a profile of the measured iterations
	// alone starts and stops on. In an interleaved case every side's is
	// called, in the sides' order, before the first round and after the
	// last.
	Measuring func(begin bool)
	// Words names the settings and gives the advice in the case's
	// errors and notes.
	Words Words

	// Shard and Shards, when Shards is over 1, make the case one shard
	// of a load split over Shards generators (see shard.go): in open
	// loop, Rate is this shard's share of the whole rate and its
	// schedule the whole schedule's connections k ≡ Shard (mod Shards);
	// with Arrival poisson, its own random arrivals (seeded from the
	// name and the shard), which together make a Poisson process of the
	// whole rate. Shards 1 is a shard of a run of one: its record
	// carries the times, as every shard's does.
	Shard, Shards int
	// StartAt, when set, is when the warm-up begins: once its sessions
	// are primed, the case waits until then, or, past it, begins at once
	// and records how late (Record.StartLateUS, in a sharded case).
	StartAt time.Time

	hooks *testHooks // nil outside tests
	// wholeWindow is, in an open-loop shard, the connections a window of
	// the whole schedule (every shard's) holds.
	wholeWindow int
}

// Progress reports a finished iteration.
type Progress struct {
	Case      string
	Warmup    bool
	Iteration int // 1-based within its phase
	// Of is the phase's planned iterations: measuring towards a target
	// error (HandshakeCase.TargetError), Iteration may go past it.
	Of int
	// HandshakesPerSec of this iteration.
	HandshakesPerSec float64
}

// ServerObserver reports what the server itself counted.
type ServerObserver interface {
	Snapshot() (ServerSnapshot, error)
}

// ServerSnapshot is the server's view at one moment. Fields the server
// cannot report are marked absent by their Has flags.
type ServerSnapshot struct {
	HasCounts  bool
	Handshakes int64
	Resumed    int64
	Failures   map[string]int64
	// Identities counts handshakes by client identity (see
	// HandshakeCase.ClientIdentities).
	Identities map[string]int64
	// KeyDecryptions counts the server's private key decryptions (its
	// key manager's PKCS#12 decodes).
	KeyDecryptions int64
	// Declined counts sessions the server refused to resume, by reason.
	Declined map[string]int64
	// Phases are the server's own phase histograms since it started, by
	// phase name (results.PhaseServer*); nil when it does not time them.
	// A snapshot's phases are cumulative: the differences between the
	// snapshots of an iteration's boundaries are the iteration's.
	Phases map[string]*stats.Latency
	// phasesLost marks a difference whose phases went backwards (see
	// serverDelta).
	phasesLost bool
	// HandshakeCPU is the CPU time the server measured its handshakes
	// took, in nanoseconds by kind (results.PartFull, PartResumed), and
	// HandshakeCPULost the handshakes it could not measure whole; nil
	// and 0 when it does not measure them (a mix's parts get no server
	// CPU then).
	HandshakeCPU     map[string]int64
	HandshakeCPULost int64
	// EarlyDataAccepted and EarlyDataRejected are the server's counts
	// of early data it accepted and refused, when HasEarlyData.
	HasEarlyData                         bool
	EarlyDataAccepted, EarlyDataRejected int64
	HasCPU                               bool
	CPU                                  time.Duration
	HasAlloc                             bool
	AllocBytes                           uint64

	// QUICRetries and QUICRefused are the server's counts of QUIC
	// connection attempts asked to prove their address first (a Retry)
	// and refused, which a QUIC case records.
	QUICRetries, QUICRefused int64
}

// CaseError is a case that could not be measured at all (every handshake
// of an iteration failed).
type CaseError struct {
	Case  string
	Kind  string
	Err   error
	Count int
	// Hint, when set, is the advice at the end (from the case's Words).
	Hint string
}

func (e *CaseError) Error() string {
	msg := fmt.Sprintf("%s: all %d handshakes of an iteration failed (%s): %v", e.Case, e.Count, e.Kind, e.Err)
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

// noneSucceeded is the error of an iteration in which no handshake
// succeeded: a CaseError naming the first failure, or, when it made no
// connection at all, an error that says so (a CaseError would read "all
// 0 handshakes failed" and name no failure).
func (hc *HandshakeCase) noneSucceeded(it iterResult) error {
	if n := it.conns(); n > 0 && it.firstErr != nil {
		return hc.caseError(it.firstKind, it.firstErr, n)
	}
	return fmt.Errorf("%s: an iteration made no connection", hc.Name)
}

// caseError returns the CaseError of an iteration of n handshakes that
// all failed, the first with kind and err, with the advice for it.
func (hc *HandshakeCase) caseError(kind string, err error, n int) *CaseError {
	e := &CaseError{Case: hc.Name, Kind: kind, Err: err, Count: n}
	var wrongName x509.HostnameError
	switch {
	case kind == connerr.Verify && errors.As(err, &wrongName):
		e.Hint = hc.Words.advice(AdviceWrongName)
	case kind == connerr.Verify:
		e.Hint = hc.Words.advice(AdviceUntrusted)
	case strings.Contains(kind, "certificate required"):
		e.Hint = hc.Words.advice(AdviceClientCert)
	case kind == connerr.Refused:
		e.Hint = RefusedHint(err)
	case isPingMismatch(kind, err):
		e.Hint = hc.Words.advice(AdviceNotEcho)
	}
	return e
}

func (e *CaseError) Unwrap() error { return e.Err }

// IdentityError is a case in which the server saw other client identities
// than the client presented: sessions were resumed across identities.
type IdentityError struct {
	Case              string
	Presented, Served map[string]int64
}

func (e *IdentityError) Error() string {
	return fmt.Sprintf("%s: the server saw client identities %v while the client presented %v: a session was resumed under another identity",
		e.Case, e.Served, e.Presented)
}

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

func (hc *HandshakeCase) setDefaults() error {
	if hc.Handshakes <= 0 {
		hc.Handshakes = 128
	}
	if hc.Rate > 0 {
		hc.Arrival = cmp.Or(hc.Arrival, results.ArrivalConstant)
		if hc.MaxInflight == 0 {
			hc.MaxInflight = DefaultMaxInflight
		}
	}
	if err := hc.validate(); err != nil {
		return fmt.Errorf("%s: %w", hc.Name, err)
	}
	hc.openDefaults()
	if hc.Exchange == nil {
		hc.Exchange = PingPong
	}
	if hc.ConnTimeout <= 0 {
		hc.ConnTimeout = 10 * time.Second
	}
	hc.quicDefaults()
	if hc.TrackTicketUse && hc.Resume {
		hc.Clients = trackTicketUse(hc.Clients)
	}
	return nil
}

// validate checks the settings a case cannot run without; the errors
// name the field (*field.Error).
func (hc *HandshakeCase) validate() error {
	if err := hc.validateOpen(); err != nil {
		return err
	}
	if err := hc.validateShard(); err != nil {
		return err
	}
	if err := hc.validateMix(); err != nil {
		return err
	}
	switch {
	case hc.Concurrency <= 0 && hc.Rate == 0:
		return field.Errorf("Concurrency", hc.Concurrency, "must be at least 1")
	case hc.Iterations <= 0:
		return field.Errorf("Iterations", hc.Iterations, "must be at least 1")
	case len(hc.Clients) == 0:
		return field.Errorf("Clients", nil, "no client configuration")
	case hc.Dialer == nil && hc.QUIC == nil:
		return field.Errorf("Dialer", nil, "no dialer")
	case len(hc.ClientIdentities) > 0 && len(hc.ClientIdentities) != len(hc.Clients):
		return field.Errorf("ClientIdentities", len(hc.ClientIdentities), "one per client: there are %d clients", len(hc.Clients))
	case hc.MinResumption != nil && (*hc.MinResumption < 0 || *hc.MinResumption > 1):
		return field.Errorf("MinResumption", *hc.MinResumption, "must be between 0 and 1")
	case hc.MaxErrorRate < 0 || hc.MaxErrorRate > 1:
		return field.Errorf("MaxErrorRate", hc.MaxErrorRate, "must be between 0 and 1")
	case !(hc.TargetError >= 0) || math.IsInf(hc.TargetError, 1):
		return field.Errorf("TargetError", hc.TargetError, "must be a finite share of the mean, 0 for none")
	}
	for _, c := range hc.Clients {
		if (c.ClientSessionCache != nil) != hc.Resume {
			return field.Errorf("Clients", nil, "a client session cache must be set exactly when Resume is")
		}
	}
	return hc.validateQUIC()
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
		Setting: hc.Words.name("MinResumption")}
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

// figures are the statistics of a case's kept iterations, in the units
// of its record: summarising stands apart from measuring (measure) and
// from writing the record (finish).
type figures struct {
	iters     stats.Summary // of the per-iteration samples
	latencyUS [4]float64    // p50, p90, p99 and p99.9 of single handshakes
	histogram string        // encoded; empty when encoding failed
	perSec    float64       // successful handshakes per second of wall time
	server    ServerSnapshot
	serverErr error // why server is unknown
	load      usage.Load
	hasLoad   bool
}

// summarise computes the figures of the kept iterations.
func (r *caseRunner) summarise(m *measured) figures {
	f := figures{iters: stats.Summarize(m.samples)}
	for i, p := range []float64{50, 90, 99, 99.9} {
		f.latencyUS[i] = m.lat.PercentileUS(p)
	}
	if h, err := m.lat.Encode(); err == nil {
		f.histogram = h
	}
	if m.total.wall > 0 {
		// Successful handshakes over the wall time of the kept
		// iterations, failed connections' time included.
		f.perSec = float64(m.total.ok) / m.total.wall.Seconds()
	}
	f.server, f.serverErr = m.meter.serverTotal()
	f.load, f.hasLoad = m.meter.load(m.total.wall, f.server, r.hc.transport() == "memory")
	return f
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

// keep adds a measured iteration to the totals.
func (m *measured) keep(it iterResult, sp span) {
	m.samples = append(m.samples, it.sample())
	m.sampleOK = append(m.sampleOK, it.ok)
	if it.open == nil {
		m.hsSamples = append(m.hsSamples, float64(it.handshakes.Nanoseconds())/1e3/float64(it.ok))
	}
	t := &m.total
	if it.open != nil {
		t.open.add(it.open)
	}
	t.wall += it.wall
	t.ok += it.ok
	t.resumed += it.resumed
	var failed int64
	for k, v := range it.failures {
		t.failures[k] += v
		failed += v
	}
	for k, v := range it.ciphers {
		t.ciphers[k] += v
	}
	for k, v := range it.groups {
		t.groups[k] += v
	}
	for k, v := range it.perClient {
		t.perClient[k] += v
	}
	for k, v := range it.failedBy {
		t.failedBy[k] += v
	}
	for k, v := range it.quicVersions {
		t.quicVersions[k] += v
	}
	t.early.add(it.early)
	if m.firstErr == nil && it.firstErr != nil {
		m.firstErr, m.firstKnd = it.firstErr, it.firstKind
	}
	st := iterStat{ok: it.ok, resumed: it.resumed, failed: failed}
	if sp.srvErr == nil && sp.srv.HasCounts {
		st.declined = sp.srv.Declined
		if st.declined == nil {
			st.declined = map[string]int64{}
		}
		st.hasServer, st.srvResumed, st.srvHandshakes = true, sp.srv.Resumed, sp.srv.Handshakes
	}
	m.iters = append(m.iters, st)
}

// finish builds the record of the kept iterations from their figures
// and applies the gates.
func (r *caseRunner) finish(ctx context.Context, m *measured, f figures) (*results.Record, error) {
	hc := r.hc
	rec := r.baseRecord(m, f)
	rec.Phases = r.phaseRecords(m, f)
	rec.Parts = r.partFigures(m)
	if hc.ResumeRatio != nil {
		rec.ResumeRatio = results.Float(*hc.ResumeRatio)
	}
	rec.Notes = append(rec.Notes, m.notes...)
	r.shardFigures(&rec, m)
	r.setCosts(&rec, m)
	identityErr := r.serverFigures(&rec, m, f)
	earlyErr := r.quicFigures(&rec, m, f)
	r.partCPU(&rec, m, f)
	rec.Notes = append(rec.Notes, m.meter.back.notes()...)
	if f.hasLoad {
		recordMachine(&rec, f.load, true)
	}
	r.listenFigures(&rec, &m.meter.listen)
	if len(hc.ClientIdentities) > 0 {
		rec.ClientIdentities = len(hc.ClientIdentities)
	}
	rec.Notes = append(rec.Notes, r.headlineNotes(&rec, m)...)
	gates := *hc
	var lost *ErrorRateError
	if errors.As(m.stopErr, &lost) {
		// The error rate already failed the case, with the failures of
		// the iteration it stopped: the kept iterations' rate is only
		// noted.
		gates.MaxErrorRate = 1
	}
	gateErr := gates.gates(&rec, m.iters, m.firstErr, m.firstKnd)
	gateErr = errors.Join(gateErr, r.openFigures(&rec, m))
	if hc.Proxy != nil {
		prx, prxErr := m.meter.proxyTotal()
		proxyFigures(&rec, hc.Proxy, prx, prxErr, float64(m.total.ok))
		rec.Notes = append(rec.Notes, proxyLegNote)
		gateErr = errors.Join(gateErr, hc.proxyResumedGate(&rec, prx, prxErr))
	}
	for _, e := range []error{identityErr, earlyErr} {
		if e != nil {
			rec.Verdict = VerdictFailed
			rec.Notes = append(rec.Notes, "failed: "+strings.TrimPrefix(e.Error(), hc.Name+": "))
			gateErr = errors.Join(gateErr, e)
		}
	}
	if m.stopErr != nil {
		kept := len(m.samples)
		if ctx.Err() != nil {
			rec.Notes = append(rec.Notes, fmt.Sprintf("interrupted after %d of %d iterations", kept, hc.Iterations))
			return &rec, fmt.Errorf("%s: %w", hc.Name, m.stopErr)
		}
		// An iteration failed outright: what came before it is kept,
		// and the case fails.
		rec.Verdict = VerdictFailed
		rec.Notes = append(rec.Notes, fmt.Sprintf("failed after %d of %d iterations: %v", kept, hc.Iterations, m.stopErr))
		return &rec, errors.Join(m.stopErr, gateErr)
	}
	return &rec, gateErr
}

// baseRecord fills the record's identity, counts and latency statistics.
func (r *caseRunner) baseRecord(m *measured, f figures) results.Record {
	hc := r.hc
	total := m.total
	rec := hc.Record
	rec.Name = hc.Name
	rec.Kind = results.KindHandshake
	rec.TLSVersion = tlsconf.VersionName(hc.Version)
	rec.Resume = hc.Resume
	rec.Mutual = hc.Mutual
	rec.Concurrency = hc.Concurrency
	rec.Transport = hc.transport()
	rec.Group = groupOf(total.groups)
	rec.Cipher = cipherOf(total.ciphers)
	rec.Handshakes = total.ok
	rec.Resumed = total.resumed
	rec.ResumptionRate = ratio(total.resumed, total.ok)
	rec.ErrorsByKind = nil
	rec.Errors = 0
	rec.Verdict = ""
	for k, v := range total.failures {
		if rec.ErrorsByKind == nil {
			rec.ErrorsByKind = map[string]int64{}
		}
		rec.ErrorsByKind[k] = v
		rec.Errors += v
	}
	setSummary(&rec, m.samples, f.iters)
	rec.SampleHandshakes = m.sampleOK
	rec.SetHandshakeFigure(m.handshakeSamples())
	rec.P50US, rec.P90US, rec.P99US, rec.P999US = f.latencyUS[0], f.latencyUS[1], f.latencyUS[2], f.latencyUS[3]
	rec.Histogram = f.histogram
	rec.HandshakesPerSec = f.perSec
	rec.StoppedBy = m.stoppedBy
	rec.TargetError = nil
	if hc.TargetError > 0 {
		rec.TargetError = results.Float(hc.TargetError)
	}
	return rec
}

// perHandshake divides a cost over the successful handshakes.
func (m *measured) perHandshake(d time.Duration) *float64 {
	return results.Float(float64(d.Nanoseconds()) / 1e3 / float64(m.total.ok))
}

// setCosts fills the client's CPU and allocations per successful
// handshake, from the spans of the kept iterations only.
func (r *caseRunner) setCosts(rec *results.Record, m *measured) {
	self, wall := m.meter.total.self, m.total.wall
	rec.ClientCPUUS, rec.ServerCPUUS, rec.ProcessCPUUS, rec.ServerResumed, rec.ServerAllocBytes = nil, nil, nil, nil, nil
	rec.AllocBytes = float64(self.AllocBytes) / float64(m.total.ok)
	if wall > 0 && self.CPU > 0 && rec.Transport != "memory" {
		// A client that uses (nearly) all the cores it may run on is
		// measuring itself: the figures then describe the load
		// generator, not the server.
		used := self.CPU.Seconds() / wall.Seconds()
		if rec.Extra == nil {
			rec.Extra = map[string]float64{}
		}
		rec.Extra["client_cores_used"] = used
		if limit := float64(runtime.GOMAXPROCS(0)); used >= SaturationShare*limit {
			rec.Notes = append(rec.Notes, fmt.Sprintf(
				"load generator saturated: the client used %.2f of its %.0f cores; these figures describe the client, not the server", used, limit))
		}
	}
	if rec.Transport == "memory" {
		// Both ends share the process: neither side's CPU can be told
		// apart, so only the total is reported.
		rec.ProcessCPUUS = m.perHandshake(self.CPU)
		rec.Notes = append(rec.Notes, "memory transport: alloc_bytes counts both ends (one process)")
	} else if self.CPU > 0 {
		rec.ClientCPUUS = m.perHandshake(self.CPU)
	}
}

// serverFigures fills what the server counted over the kept iterations,
// and returns an IdentityError when it saw other client identities than
// the client presented, a ServerUnusedError when it completed none of
// the client's handshakes.
func (r *caseRunner) serverFigures(rec *results.Record, m *measured, f figures) error {
	hc := r.hc
	if hc.Server == nil {
		return nil
	}
	srv := f.server
	if f.serverErr != nil {
		rec.Notes = append(rec.Notes, "server counters unavailable: "+f.serverErr.Error())
		return nil
	}
	total := m.total
	if srv.HasCounts && srv.Handshakes == 0 && total.ok > 0 {
		// Nothing the server did is per handshake of this case: its
		// figures stay null, and the case fails.
		rec.ServerResumed = results.Int(srv.Resumed)
		return &ServerUnusedError{Case: hc.Name, Client: total.ok, Proxy: rec.Proxy != ""}
	}
	var identityErr error
	if srv.HasCounts {
		identityErr = hc.checkIdentities(total.perClient, total.failedBy, srv.Identities)
		rec.ServerResumed = results.Int(srv.Resumed)
		if srv.Handshakes != total.ok {
			rec.Notes = append(rec.Notes, fmt.Sprintf(
				"server completed %d handshakes, client %d", srv.Handshakes, total.ok))
		}
		if srv.KeyDecryptions > 0 {
			if rec.Extra == nil {
				rec.Extra = map[string]float64{}
			}
			rec.Extra["server_key_decryptions_per_handshake"] = float64(srv.KeyDecryptions) / float64(total.ok)
		}
	}
	if srv.HasCPU {
		rec.ServerCPUUS = m.perHandshake(srv.CPU)
	}
	if srv.HasAlloc {
		rec.ServerAllocBytes = results.Float(float64(srv.AllocBytes) / float64(total.ok))
	}
	return identityErr
}

// checkIdentities compares the identities the client presented with those
// the server counted. A connection that failed on the client may still
// have completed its handshake on the server (a timeout in the exchange,
// say), so for each identity the server's count must lie between the
// client's successes and its successes plus failures; outside that range,
// or for an identity never presented, a session was resumed under another
// identity than the one presented.
func (hc *HandshakeCase) checkIdentities(ok, failed map[int]int64, served map[string]int64) error {
	if len(hc.ClientIdentities) == 0 {
		return nil
	}
	presented, maybe := map[string]int64{}, map[string]int64{}
	for i, n := range ok {
		presented[hc.ClientIdentities[i]] += n
	}
	for i, n := range failed {
		maybe[hc.ClientIdentities[i]] += n
	}
	bad := false
	for id, n := range served {
		if n < presented[id] || n > presented[id]+maybe[id] {
			bad = true
		}
	}
	for id, n := range presented {
		if served[id] < n {
			bad = true
		}
	}
	if bad {
		return &IdentityError{Case: hc.Name, Presented: presented, Served: served}
	}
	return nil
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

func (s ServerSnapshot) sub(earlier ServerSnapshot) ServerSnapshot {
	d := s
	d.Handshakes -= earlier.Handshakes
	d.Resumed -= earlier.Resumed
	d.CPU -= earlier.CPU
	d.AllocBytes -= earlier.AllocBytes
	d.KeyDecryptions -= earlier.KeyDecryptions
	d.Failures = counts.Sub(s.Failures, earlier.Failures)
	d.Identities = counts.Sub(s.Identities, earlier.Identities)
	d.Declined = counts.Sub(s.Declined, earlier.Declined)
	d.Phases, d.phasesLost = subPhases(s.Phases, earlier.Phases)
	d.HandshakeCPU = counts.Sub(s.HandshakeCPU, earlier.HandshakeCPU)
	d.HandshakeCPULost -= earlier.HandshakeCPULost
	d.EarlyDataAccepted -= earlier.EarlyDataAccepted
	d.EarlyDataRejected -= earlier.EarlyDataRejected
	d.QUICRetries -= earlier.QUICRetries
	d.QUICRefused -= earlier.QUICRefused
	d.HasEarlyData = s.HasEarlyData && earlier.HasEarlyData
	return d
}

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
	defer abortiveClose(raw)
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
		pc.measure = true
		pc.work.Resume()
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
		pc.watching = true
	}
	if err := hc.Exchange(tc); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		kind := connerr.Kind(err)
		if errors.Is(err, errBadEcho) {
			kind = "bad-echo"
		}
		return connResult{stage: "exchange", errKind: kind, err: fmt.Errorf("after handshake: %w", err)}
	}
	exchanged := time.Now()
	st := tc.ConnectionState()
	res := connResult{ok: true, resumed: st.DidResume, group: st.CurveID, cipher: st.CipherSuite, latency: took,
		hsEnd: end, exchange: exchanged.Sub(end)}
	if pc != nil {
		pc.work.Pause()
		res.work, res.workLost = pc.work.CPU, pc.work.Lost > 0
		res.phases, res.connect, res.handshake, res.firstByte, res.firstResponse = true, connected.Sub(dialed), end.Sub(pc.wrote), -1, -1
		if !pc.read.IsZero() {
			res.firstByte = pc.read.Sub(end)
		}
		if !pc.answer.IsZero() {
			res.firstResponse = pc.answer.Sub(dialed)
		}
	}
	return res
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// groupOf names the group the case negotiated: the one group all
// handshakes used, or the groups with their counts when they differed.
func groupOf(groups map[tls.CurveID]int64) string {
	if len(groups) == 1 {
		for g := range groups {
			return tlsconf.GroupName(g)
		}
	}
	parts := make([]string, 0, len(groups))
	for g, n := range groups {
		parts = append(parts, fmt.Sprintf("%s:%d", tlsconf.GroupName(g), n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// cipherOf names the cipher the case negotiated, as groupOf names the
// group: one name, or the names with their counts when they differed.
func cipherOf(ciphers map[uint16]int64) string {
	parts := make([]string, 0, len(ciphers))
	for c, n := range ciphers {
		if len(ciphers) == 1 {
			return tlsconf.CipherName(c)
		}
		parts = append(parts, fmt.Sprintf("%s:%d", tlsconf.CipherName(c), n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}
