package loadgen

import (
	"context"
	"crypto/tls"
	"errors"
	"sync/atomic"
	"time"

	"github.com/tlsbench/tlsbench/internal/counts"

	"github.com/tlsbench/tlsbench/stats"
)

// SaturationShare is the share of GOMAXPROCS the client may use before a
// case is flagged as measuring the load generator rather than the server.
const SaturationShare = 0.9

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

// measurer is what a case's measurement keeps while the schedule runs
// its connections.
type measurer struct {
	hc *HandshakeCase
	// budget, when set, counts the failures of the phase in progress
	// against the maximum error rate (see failureBudget).
	budget *failureBudget
	// phases, when set, receives the phases of the connections tally
	// counts with a latency histogram (the measured iteration in
	// progress).
	phases *clientPhases
	// dry counts, in a mix, the offers that found no session (see
	// caseRunner.clientFor).
	dry atomic.Int64
	// late is how long after StartAt the warm-up began.
	late time.Duration
	// iterate runs one iteration of the case's schedule
	// (caseRunner.runIteration).
	iterate func(ctx context.Context, lat *stats.Latency) (iterResult, error)
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

func (r *measurer) progress(warm bool, i, of int, it iterResult) {
	if r.hc.Progress == nil {
		return
	}
	p := Progress{Case: r.hc.Name, Warmup: warm, Iteration: i, Of: of}
	if it.wall > 0 {
		p.HandshakesPerSec = float64(it.ok) / it.wall.Seconds()
	}
	r.hc.Progress(p)
}

// tally counts one finished connection into the iteration's result and
// the error budget, and records its latency in lat (when not nil). Every
// way of scheduling connections accounts for them here.
func (r *measurer) tally(out *iterResult, c connResult, lat *stats.Latency) {
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
