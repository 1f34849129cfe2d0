package measure

import (
	"context"
	"crypto/tls"
	"errors"
	"sync/atomic"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/counts"

	"github.com/tlsbench/tlsbench/stats"
)

// SaturationShare is the share of GOMAXPROCS the client may use before a
// case is flagged as measuring the load generator rather than the server.
const SaturationShare = 0.9

// IterResult aggregates one iteration.
type IterResult struct {
	Wall      time.Duration
	OK        int64
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
	Early        EarlyCounts
	// Open is an open-loop window's schedule and timing (nil in closed
	// loop); in the totals, the kept windows' together.
	Open *WindowStats

	// Handshakes is the part of wall up to the end of each wave's last
	// successful handshake (closed loop): the iteration's time without
	// the exchanges that ended its waves (see waveHandshakes).
	Handshakes time.Duration
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

// Measurer is what a case's measurement keeps while the schedule runs
// its connections.
type Measurer struct {
	Case *HandshakeCase
	// budget, when set, counts the failures of the phase in progress
	// against the maximum error rate (see failureBudget).
	Budget *failureBudget
	// phases, when set, receives the phases of the connections tally
	// counts with a latency histogram (the measured iteration in
	// progress).
	phases *clientPhases
	// Dry counts, in a mix, the offers that found no session (see
	// caseRunner.clientFor).
	Dry atomic.Int64
	// Late is how long after StartAt the warm-up began.
	Late time.Duration
	// Iterate runs one iteration of the case's schedule
	// (caseRunner.runIteration).
	Iterate func(ctx context.Context, lat *stats.Latency) (IterResult, error)
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
func (it IterResult) conns() int {
	n := it.OK
	for _, v := range it.failures {
		n += v
	}
	return int(n)
}

func NewIterResult() IterResult {
	return IterResult{failures: map[string]int64{}, groups: map[tls.CurveID]int64{}, ciphers: map[uint16]int64{}, perClient: map[int]int64{}, failedBy: map[int]int64{},
		quicVersions: map[string]int64{}}
}

func (r *Measurer) progress(warm bool, i, of int, it IterResult) {
	if r.Case.Progress == nil {
		return
	}
	p := Progress{Case: r.Case.Name, Warmup: warm, Iteration: i, Of: of}
	if it.Wall > 0 {
		p.HandshakesPerSec = float64(it.OK) / it.Wall.Seconds()
	}
	r.Case.Progress(p)
}

// Tally counts one finished connection into the iteration's result and
// the error budget, and records its latency in lat (when not nil). Every
// way of scheduling connections accounts for them here.
func (r *Measurer) Tally(out *IterResult, c client.Sample, lat *stats.Latency) {
	if r.Budget != nil {
		r.Budget.add(c)
	}
	if !c.OK {
		out.failures[c.ErrKind]++
		out.failedBy[c.Client]++
		if out.firstErr == nil {
			out.firstErr, out.firstKind = c.Err, c.ErrKind
		}
		return
	}
	out.OK++
	if c.Resumed {
		out.resumed++
	}
	out.groups[c.Group]++
	out.ciphers[c.Cipher]++
	out.perClient[c.Client]++
	if c.QUICVersion != "" {
		out.quicVersions[c.QUICVersion]++
	}
	out.Early.Count(c.Early, c.EarlyLate)
	if lat != nil {
		lat.Record(c.Latency)
		if r.phases != nil {
			r.phases.record(&c)
		}
	}
}
