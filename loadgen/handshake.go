package loadgen

import (
	"context"
	"crypto/tls"
	"sync"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

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
func RunHandshakes(ctx context.Context, hc measure.HandshakeCase) (*results.Record, error) {
	if err := hc.SetDefaults(); err != nil {
		return nil, err
	}
	r := newCaseRunner(&hc)
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
	defer m.Release() // the record holds encodings, not histograms
	rec, err := r.Finish(ctx, m, r.Summarise(m))
	return rec, hc.ListenFailure(err, &m.Meter.Listen, rec)
}

type caseRunner struct {
	*measure.Measurer
	next int // index of the next connection, for client rotation
	// work feeds the case's worker goroutines. They live as long as the
	// case, so their stacks, grown by the first handshake, stay grown: a
	// fresh goroutine per connection costs a measurable share of a
	// handshake's client CPU in stack growth alone.
	work chan func()
	// conns holds the phaseConn wrappers of finished connections for
	// reuse.
	conns sync.Pool
	// open is the schedule's state in an open-loop case (nil otherwise).
	open *openState
	// until ends a timed closed-loop iteration (zero: none).
	until time.Time
	// full, in a mix, are the clients' configurations for connections
	// that do not offer a session, and offer those for connections that
	// do once priming is over, which count in dry the offers that found
	// no session (see clientFor).
	full, offer []*tls.Config
	// warmNote says the case time cut the warm-up short (warmup).
	warmNote string
}

// newCaseRunner is the runner of hc: its schedule (caseRunner) over its
// measurement (measurer).
func newCaseRunner(hc *measure.HandshakeCase) *caseRunner {
	r := &caseRunner{Measurer: &measure.Measurer{Case: hc}}
	r.Iterate = r.runIteration
	return r
}

// startWorkers starts the concurrency-1 workers a wave needs besides the
// calling goroutine; stop ends them.
func (r *caseRunner) startWorkers() (stop func()) {
	if r.Case.Rate > 0 {
		r.open = newOpenState(r.Case)
		return r.open.stop
	}
	r.work = make(chan func())
	for range r.Case.Concurrency - 1 {
		go func() {
			for f := range r.work {
				f()
			}
		}()
	}
	return func() { close(r.work) }
}

// prime fills the session cache so that every handshake of the first
// warm-up wave has a session to offer. Priming handshakes deposit their
// session but never take one: were they to resume, a handshake that
// finished early would hand its fresh ticket to one starting late in the
// same wave, and an identity would end with fewer sessions than a wave
// asks of it at once, so that single-use tickets run short at random.
// One round covers every identity as often as a wave uses it.
func (r *caseRunner) prime(ctx context.Context) error {
	hc := r.Case
	r.full = mixClients(hc)
	saved := hc.Clients
	defer func() { hc.Clients = saved }()
	hc.Clients = make([]*tls.Config, len(saved))
	for i, c := range saved {
		hc.Clients[i] = c.Clone()
		hc.Clients[i].ClientSessionCache = depositOnly{c.ClientSessionCache}
	}
	n := max(hc.PrimeWave(), len(saved))
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
		r.offer = watchDry(saved, &r.Dry)
	}
	return err
}

// depositOnly is a session cache that stores sessions but offers none.
type depositOnly struct{ tls.ClientSessionCache }

func (depositOnly) Get(string) (*tls.ClientSessionState, bool) { return nil, false }

// iteration runs n handshakes in waves of hc.Concurrency and records the
// successful handshakes' latencies in lat (when not nil). A timed
// iteration (r.until) makes at least one wave, so that it always has
// connections to count even when a pause of the machine let its window
// end before the first. It stops between waves once ctx ends: against a
// target that refuses, a wave takes microseconds and a timed iteration
// would otherwise make them until its window ends, a CPU spent for
// nothing after the user asked to stop.
func (r *caseRunner) iteration(ctx context.Context, n int, lat *stats.Latency) (measure.IterResult, error) {
	hc := r.Case
	out := measure.NewIterResult()
	res := make([]client.Sample, hc.Concurrency)
	var wg sync.WaitGroup
	start := time.Now()
	for done := 0; done < n && (done == 0 || !r.windowOver()) && ctx.Err() == nil; {
		wave := min(hc.Concurrency, n-done)
		waveStart := time.Now()
		for j := 0; j < wave; j++ {
			client := r.next % len(hc.Clients)
			r.next++
			run := func() {
				res[j] = r.connect(ctx, r.clientFor(client, done+j), client)
				res[j].Client = client
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
			if e := hc.Stalled(res[:wave]); e != nil {
				return out, e
			}
		}
		for _, c := range res[:wave] {
			r.Tally(&out, c, lat)
		}
		out.Handshakes += waveHandshakes(waveStart, res[:wave])
		done += wave
		if e := hc.Lost(r.Budget); e != nil {
			out.Wall = time.Since(start)
			return out, e
		}
	}
	out.Wall = time.Since(start)
	if out.OK == 0 {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		return out, hc.NoneSucceeded(out)
	}
	return out, nil
}

// waveHandshakes is how long a wave started at start took up to the end
// of its last successful handshake: what the wave would have taken had
// its connections done nothing but connect and handshake (0 when none
// succeeded).
func waveHandshakes(start time.Time, res []client.Sample) time.Duration {
	var last time.Time
	for i := range res {
		if c := &res[i]; c.OK && c.HSEnd.After(last) {
			last = c.HSEnd
		}
	}
	if last.IsZero() {
		return 0
	}
	return last.Sub(start)
}
