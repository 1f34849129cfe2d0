package loadgen

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tlsbench/tlsbench/internal/connerr"
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
	Mutual bool
	// Concurrency is the size of a wave of simultaneous handshakes.
	Concurrency int
	// Handshakes per iteration (default 128).
	Handshakes int
	// Iterations measured and Warmup iterations discarded before them.
	Iterations int
	Warmup     int
	// MaxDuration stops measuring early (after at least two iterations)
	// once the measured iterations have taken this long; 0 means no limit.
	MaxDuration time.Duration
	// MinResumption is the share of warm-up handshakes that must resume in
	// a resume case (default 0.99 when zero; negative disables the check).
	MinResumption float64
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
	// Exchange runs after each handshake (default PingPong).
	Exchange Exchange
	// ConnTimeout bounds each connection from dial to close (default 10 s).
	ConnTimeout time.Duration
	// Server, when set, is asked for the server's own counts before and
	// after the measured iterations.
	Server ServerObserver
	// Record holds the descriptive fields to copy into the result (key
	// type, transport, identities, env...); measurement fields are
	// overwritten.
	Record results.Record
	// Progress, when set, is called after every iteration.
	Progress func(Progress)
}

// Progress reports a finished iteration.
type Progress struct {
	Case      string
	Warmup    bool
	Iteration int // 1-based within its phase
	Of        int
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
	Declined   map[string]int64
	HasCPU     bool
	CPU        time.Duration
	HasAlloc   bool
	AllocBytes uint64
}

// ResumptionError is returned when a resume case's warm-up (or, without a
// warm-up, its measured iterations) resumed fewer handshakes than
// required: its figures would describe full handshakes.
type ResumptionError struct {
	Case            string
	Resumed, Total  int64
	Rate, Required  float64
	ServerResumed   int64 // -1 when unknown
	ServerHandshake int64
	// ServerDeclined counts the sessions the server refused, by reason.
	ServerDeclined map[string]int64
	// Measured is set when the measured iterations (there was no warm-up)
	// fell short; the record is then returned with the error.
	Measured bool
	// Hint, when set, replaces the generic advice at the end.
	Hint string
}

func (e *ResumptionError) Error() string {
	phase := "warm-up"
	if e.Measured {
		phase = "measured iterations"
	}
	msg := fmt.Sprintf("%s: %s resumed %.1f%% of handshakes (%d of %d), below --min-resumption %.2f",
		e.Case, phase, 100*e.Rate, e.Resumed, e.Total, e.Required)
	if e.ServerResumed >= 0 {
		msg += fmt.Sprintf(" (the server counted %d of %d resumed", e.ServerResumed, e.ServerHandshake)
		if len(e.ServerDeclined) > 0 {
			msg += " and declined " + countList(e.ServerDeclined) + " sessions"
		}
		msg += ")"
	}
	hint := e.Hint
	if hint == "" {
		hint = "check it with tlsbench probe"
	}
	return msg + "; the server may not issue or accept session tickets for this configuration (" + hint + "), or lower --min-resumption to measure anyway"
}

// CaseError is a case that could not be measured at all (every handshake
// of an iteration failed).
type CaseError struct {
	Case  string
	Kind  string
	Err   error
	Count int
}

func (e *CaseError) Error() string {
	msg := fmt.Sprintf("%s: all %d handshakes of an iteration failed (%s): %v", e.Case, e.Count, e.Kind, e.Err)
	switch {
	case e.Kind == connerr.Verify:
		msg += " (give the CA that issued the server's certificate with --ca FILE, or skip verification with --insecure)"
	case strings.Contains(e.Kind, "certificate required"):
		msg += " (the server wants a client certificate: --mutual --client-cert FILE --client-key FILE)"
	case e.Kind == connerr.Refused:
		msg += " (is the server listening there?)"
	}
	return msg
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
	client    int // index into Clients
	ok        bool
	resumed   bool
	group     tls.CurveID
	handshake time.Duration
	errKind   string
	err       error
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
	perClient map[int]int64 // successful handshakes by client index
	failedBy  map[int]int64 // failed connections by client index
}

func (hc *HandshakeCase) setDefaults() error {
	if hc.Handshakes <= 0 {
		hc.Handshakes = 128
	}
	if hc.Concurrency <= 0 {
		return fmt.Errorf("%s: concurrency must be at least 1", hc.Name)
	}
	if hc.Iterations <= 0 {
		return fmt.Errorf("%s: iterations must be at least 1", hc.Name)
	}
	if len(hc.Clients) == 0 || hc.Dialer == nil {
		return fmt.Errorf("%s: no client configuration or dialer", hc.Name)
	}
	if len(hc.ClientIdentities) > 0 && len(hc.ClientIdentities) != len(hc.Clients) {
		return fmt.Errorf("%s: %d client identities for %d clients", hc.Name, len(hc.ClientIdentities), len(hc.Clients))
	}
	for _, c := range hc.Clients {
		if (c.ClientSessionCache != nil) != hc.Resume {
			return fmt.Errorf("%s: client session cache must be set exactly when resuming", hc.Name)
		}
	}
	if hc.Exchange == nil {
		hc.Exchange = PingPong
	}
	if hc.ConnTimeout <= 0 {
		hc.ConnTimeout = 10 * time.Second
	}
	if hc.MinResumption == 0 {
		hc.MinResumption = 0.99
	}
	return nil
}

// RunHandshakes measures hc and returns its record. The record is returned
// also with an error when measuring stopped part-way (ctx cancelled):
// what was measured is kept. A ResumptionError or CaseError comes with a
// nil record.
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

	var warmOK, warmResumed int64
	var serverBefore ServerSnapshot
	var beforeErr error = errNoServer
	if hc.Warmup > 0 && hc.Resume && hc.Server != nil {
		serverBefore, beforeErr = hc.Server.Snapshot()
	}
	for i := 0; i < hc.Warmup; i++ {
		it, err := r.iteration(ctx, hc.Handshakes, nil)
		if err != nil {
			return nil, err
		}
		warmOK += it.ok
		warmResumed += it.resumed
		r.progress(true, i+1, hc.Warmup, it)
	}
	if hc.Resume && hc.Warmup > 0 && hc.MinResumption > 0 {
		if e := hc.resumptionCheck(warmResumed, warmOK, serverBefore, beforeErr); e != nil {
			return nil, e
		}
	}

	rec, err := r.measure(ctx)
	if err == nil && hc.Resume && hc.Warmup == 0 && hc.MinResumption > 0 {
		// Without a warm-up the measured iterations are held to the
		// minimum instead: the record is kept, the case still fails.
		if e := hc.resumptionCheck(rec.Resumed, rec.Handshakes, ServerSnapshot{}, errNoServer); e != nil {
			e.Measured = true
			return rec, e
		}
	}
	return rec, err
}

var errNoServer = errors.New("no server snapshot")

// resumptionCheck returns a ResumptionError when resumed/total is below
// the minimum, with the server's own counts since before (when both
// snapshots succeeded).
func (hc *HandshakeCase) resumptionCheck(resumed, total int64, before ServerSnapshot, beforeErr error) *ResumptionError {
	rate := ratio(resumed, total)
	if rate >= hc.MinResumption {
		return nil
	}
	e := &ResumptionError{Case: hc.Name, Resumed: resumed, Total: total, Rate: rate, Required: hc.MinResumption, ServerResumed: -1}
	if hc.Server != nil && beforeErr == nil {
		if after, err := hc.Server.Snapshot(); err == nil && after.HasCounts {
			e.ServerResumed = after.Resumed - before.Resumed
			e.ServerHandshake = after.Handshakes - before.Handshakes
			e.ServerDeclined = subCounts(after.Declined, before.Declined)
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
}

// startWorkers starts the concurrency-1 workers a wave needs besides the
// calling goroutine; stop ends them.
func (r *caseRunner) startWorkers() (stop func()) {
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

// measure runs the measured iterations and builds the record.
func (r *caseRunner) measure(ctx context.Context) (*results.Record, error) {
	hc := r.hc
	lat, scratch := stats.NewLatency(), stats.NewLatency()
	var (
		samples  []float64
		total    iterResult
		srvStart ServerSnapshot
		srvErr   error
		stopErr  error
	)
	total.failures = map[string]int64{}
	total.groups = map[tls.CurveID]int64{}
	total.perClient = map[int]int64{}
	total.failedBy = map[int]int64{}
	if hc.Server != nil {
		srvStart, srvErr = hc.Server.Snapshot()
	}
	selfStart := usage.Self()
	began := time.Now()
	for i := 0; i < hc.Iterations; i++ {
		if ctx.Err() != nil {
			stopErr = ctx.Err()
			break
		}
		scratch.Reset()
		it, err := r.iteration(ctx, hc.Handshakes, scratch)
		if ctx.Err() != nil {
			// An iteration cut short measures the interruption, not
			// the handshakes: it is dropped, not kept as a sample.
			stopErr = ctx.Err()
			break
		}
		if err != nil {
			return nil, err
		}
		lat.Merge(scratch)
		samples = append(samples, float64(it.wall.Nanoseconds())/1e3/float64(it.ok))
		total.wall += it.wall
		total.ok += it.ok
		total.resumed += it.resumed
		for k, v := range it.failures {
			total.failures[k] += v
		}
		for k, v := range it.groups {
			total.groups[k] += v
		}
		for k, v := range it.perClient {
			total.perClient[k] += v
		}
		for k, v := range it.failedBy {
			total.failedBy[k] += v
		}
		r.progress(false, i+1, hc.Iterations, it)
		if hc.MaxDuration > 0 && len(samples) >= 2 && time.Since(began) >= hc.MaxDuration {
			break
		}
	}
	self := usage.Self().Sub(selfStart)
	if len(samples) == 0 {
		if stopErr == nil {
			stopErr = errors.New("no iteration was measured")
		}
		return nil, fmt.Errorf("%s: %w", hc.Name, stopErr)
	}

	rec := hc.Record
	rec.Name = hc.Name
	rec.Kind = results.KindHandshake
	rec.TLSVersion = tlsconf.VersionName(hc.Version)
	rec.Resume = hc.Resume
	rec.Mutual = hc.Mutual
	rec.Concurrency = hc.Concurrency
	rec.Transport = hc.Dialer.Transport()
	rec.Group = groupOf(total.groups)
	rec.Handshakes = total.ok
	rec.Resumed = total.resumed
	rec.ResumptionRate = ratio(total.resumed, total.ok)
	rec.ErrorsByKind = nil
	rec.Errors = 0
	for k, v := range total.failures {
		if rec.ErrorsByKind == nil {
			rec.ErrorsByKind = map[string]int64{}
		}
		rec.ErrorsByKind[k] = v
		rec.Errors += v
	}
	setSummary(&rec, samples)
	rec.P50US = lat.PercentileUS(50)
	rec.P90US = lat.PercentileUS(90)
	rec.P99US = lat.PercentileUS(99)
	rec.P999US = lat.PercentileUS(99.9)
	if h, err := lat.Encode(); err == nil {
		rec.Histogram = h
	}
	if total.wall > 0 {
		rec.HandshakesPerSec = float64(total.ok) / total.wall.Seconds()
	}
	perHS := func(d time.Duration) *float64 {
		return results.Float(float64(d.Nanoseconds()) / 1e3 / float64(total.ok))
	}
	rec.ClientCPUUS, rec.ServerCPUUS, rec.ProcessCPUUS, rec.ServerResumed, rec.ServerAllocBytes = nil, nil, nil, nil, nil
	rec.AllocBytes = float64(self.AllocBytes) / float64(total.ok)

	var srv ServerSnapshot
	if hc.Server != nil && srvErr == nil {
		var end ServerSnapshot
		end, srvErr = hc.Server.Snapshot()
		srv = end.sub(srvStart)
	}
	if hc.Server != nil && srvErr != nil {
		rec.Notes = append(rec.Notes, "server counters unavailable: "+srvErr.Error())
	}
	if total.wall > 0 && self.CPU > 0 && rec.Transport != "memory" {
		// A client that uses (nearly) all the cores it may run on is
		// measuring itself: the figures then describe the load
		// generator, not the server.
		cores := self.CPU.Seconds() / total.wall.Seconds()
		if rec.Extra == nil {
			rec.Extra = map[string]float64{}
		}
		rec.Extra["client_cores_used"] = cores
		if limit := float64(runtime.GOMAXPROCS(0)); cores >= SaturationShare*limit {
			rec.Notes = append(rec.Notes, fmt.Sprintf(
				"load generator saturated: the client used %.2f of its %.0f cores; these figures describe the client, not the server", cores, limit))
		}
	}
	if rec.Transport == "memory" {
		// Both ends share the process: neither side's CPU can be told
		// apart, so only the total is reported.
		rec.ProcessCPUUS = perHS(self.CPU)
		rec.Notes = append(rec.Notes, "memory transport: alloc_bytes counts both ends (one process)")
	} else if self.CPU > 0 {
		rec.ClientCPUUS = perHS(self.CPU)
	}
	var identityErr error
	if srvErr == nil && hc.Server != nil {
		if srv.HasCounts {
			identityErr = hc.checkIdentities(total.perClient, total.failedBy, srv.Identities)
			rec.ServerResumed = results.Int(srv.Resumed)
			if srv.Handshakes != total.ok {
				rec.Notes = append(rec.Notes, fmt.Sprintf(
					"server completed %d handshakes, client %d", srv.Handshakes, total.ok))
			}
		}
		if srv.HasCPU {
			rec.ServerCPUUS = perHS(srv.CPU)
		}
		if srv.HasCounts && srv.KeyDecryptions > 0 {
			if rec.Extra == nil {
				rec.Extra = map[string]float64{}
			}
			rec.Extra["server_key_decryptions_per_handshake"] = float64(srv.KeyDecryptions) / float64(total.ok)
		}
		if srv.HasAlloc {
			rec.ServerAllocBytes = results.Float(float64(srv.AllocBytes) / float64(total.ok))
		}
	}
	if len(hc.ClientIdentities) > 0 {
		rec.ClientIdentities = len(hc.ClientIdentities)
	}
	if stopErr != nil {
		rec.Notes = append(rec.Notes, fmt.Sprintf("interrupted after %d of %d iterations", len(samples), hc.Iterations))
		return &rec, fmt.Errorf("%s: %w", hc.Name, stopErr)
	}
	if identityErr != nil {
		return nil, identityErr
	}
	return &rec, nil
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
	saved := hc.Clients
	defer func() { hc.Clients = saved }()
	hc.Clients = make([]*tls.Config, len(saved))
	for i, c := range saved {
		hc.Clients[i] = c.Clone()
		hc.Clients[i].ClientSessionCache = depositOnly{c.ClientSessionCache}
	}
	n := max(hc.Concurrency, len(saved))
	n += (len(saved) - n%len(saved)) % len(saved) // whole rounds of identities
	next := r.next
	_, err := r.iteration(ctx, n, nil)
	r.next = next // measured waves start where they would have
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
	d.Failures = subCounts(s.Failures, earlier.Failures)
	d.Identities = subCounts(s.Identities, earlier.Identities)
	d.Declined = subCounts(s.Declined, earlier.Declined)
	return d
}

func subCounts(now, before map[string]int64) map[string]int64 {
	var out map[string]int64
	for k, v := range now {
		if n := v - before[k]; n != 0 {
			if out == nil {
				out = map[string]int64{}
			}
			out[k] = n
		}
	}
	return out
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
// successful handshakes' latencies in lat (when not nil).
func (r *caseRunner) iteration(ctx context.Context, n int, lat *stats.Latency) (iterResult, error) {
	hc := r.hc
	out := iterResult{failures: map[string]int64{}, groups: map[tls.CurveID]int64{}, perClient: map[int]int64{}, failedBy: map[int]int64{}}
	res := make([]connResult, hc.Concurrency)
	var wg sync.WaitGroup
	start := time.Now()
	for done := 0; done < n; {
		wave := min(hc.Concurrency, n-done)
		for j := 0; j < wave; j++ {
			client := r.next % len(hc.Clients)
			r.next++
			run := func() {
				res[j] = r.connect(ctx, hc.Clients[client])
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
		for _, c := range res[:wave] {
			if !c.ok {
				out.failures[c.errKind]++
				out.failedBy[c.client]++
				if out.firstErr == nil {
					out.firstErr, out.firstKind = c.err, c.errKind
				}
				continue
			}
			out.ok++
			if c.resumed {
				out.resumed++
			}
			out.groups[c.group]++
			out.perClient[c.client]++
			if lat != nil {
				lat.Record(c.handshake)
			}
		}
		done += wave
	}
	out.wall = time.Since(start)
	if out.ok == 0 {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		return out, &CaseError{Case: hc.Name, Kind: out.firstKind, Err: out.firstErr, Count: n}
	}
	return out, nil
}

// connect runs one connection: dial, timed handshake, exchange, abortive
// close.
func (r *caseRunner) connect(ctx context.Context, cfg *tls.Config) connResult {
	hc := r.hc
	deadline := time.Now().Add(hc.ConnTimeout)
	raw, err := hc.Dialer.Dial(ctx, deadline)
	if err != nil {
		return connResult{errKind: connerr.Kind(err), err: err}
	}
	defer abortiveClose(raw)
	// The connection's deadline bounds it, and ending ctx moves the
	// deadline to now. This costs less than a context per connection,
	// for which crypto/tls would start a goroutine per handshake: the
	// harness's own CPU is part of what BENCHMARKS.md bounds.
	raw.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { raw.SetDeadline(time.Now()) })
	defer stop()
	tc := tls.Client(raw, cfg)
	t0 := time.Now()
	err = tc.Handshake()
	took := time.Since(t0)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return connResult{errKind: connerr.Kind(err), err: fmt.Errorf("handshake: %w", err)}
	}
	if err := hc.Exchange(tc); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		kind := connerr.Kind(err)
		if errors.Is(err, errBadEcho) {
			kind = "bad-echo"
		}
		return connResult{errKind: kind, err: fmt.Errorf("after handshake: %w", err)}
	}
	st := tc.ConnectionState()
	return connResult{ok: true, resumed: st.DidResume, group: st.CurveID, handshake: took}
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

// countList formats counts by reason for messages: "unknown 5, revoked 1".
func countList(m map[string]int64) string {
	parts := make([]string, 0, len(m))
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
