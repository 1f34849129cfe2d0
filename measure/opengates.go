package measure

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// The gates of an open-loop case: a schedule the case did not hold
// measured the generator or the cap, not the rate asked for.
const (
	// MinRateShare is the share of the scheduled starts per second a
	// case must achieve.
	MinRateShare = 0.99
	// MaxDropShare is the share of the scheduled connections a case may
	// drop.
	MaxDropShare = 0.001
)

// Why an open-loop case did not hold its schedule (RateError.Cause).
const (
	// CauseInflight: starts waited for the in-flight cap, because the
	// server answered too slowly to free it.
	CauseInflight = "in-flight cap"
	// CauseClientCPU: the client (or the machine it shares with the
	// server) had no CPU left to start connections on time.
	CauseClientCPU = "client CPU"
	// CauseUnknown: starts were late with neither of the above.
	CauseUnknown = "unknown"
)

// RateError is an open-loop case that did not hold its schedule: it
// started fewer connections per second than MinRateShare of those
// scheduled, or dropped more than MaxDropShare of them. Its record is
// returned with it, marked failed.
type RateError struct {
	Case string
	// Target is the rate asked for, Offered what the windows scheduled
	// (the target in whole connections per window), Achieved the starts
	// per second made.
	Target, Offered, Achieved float64
	Scheduled, Late, Dropped  int64
	MaxInflight               int
	Cause                     string
	// ClientCores is what the client used of Cores (its GOMAXPROCS);
	// MachineBusy the machine's busy share (0..1), -1 when unknown.
	ClientCores, Cores float64
	MachineBusy        float64
	LatenessP99US      float64
	// RateSetting and InflightSetting are what the user calls Rate and
	// MaxInflight (Words).
	RateSetting, InflightSetting string
}

func (e *RateError) Error() string { return e.Case + ": " + e.reason() }

func (e *RateError) reason() string {
	var short []string
	if e.Achieved < MinRateShare*e.Offered {
		short = append(short, fmt.Sprintf("started %s connections per second, below %s of the %s asked for",
			rateText(e.Achieved), Percent(MinRateShare), strconv.FormatFloat(e.Target, 'f', -1, 64)))
	}
	if float64(e.Dropped) > MaxDropShare*float64(e.Scheduled) {
		short = append(short, fmt.Sprintf("dropped %d of %d scheduled connections (%s), above %s",
			e.Dropped, e.Scheduled, Percent(ratio(e.Dropped, e.Scheduled)), Percent(MaxDropShare)))
	}
	return "the schedule was not held: " + strings.Join(short, ", and ") + "; " + e.why()
}

// rateText writes a rate achieved: whole starts per second, or three
// digits below a hundred.
func rateText(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// why says which end could not keep up.
func (e *RateError) why() string {
	switch e.Cause {
	case CauseInflight:
		return fmt.Sprintf("the in-flight cap was reached: with %d connections open, %d starts waited for a slot (late) and %d found none before their window ended: the server answers too slowly for this rate (lower %s, or raise %s to let the backlog grow)",
			e.MaxInflight, e.Late, e.Dropped, e.RateSetting, e.InflightSetting)
	case CauseClientCPU:
		if e.ClientCores >= SaturationShare*e.Cores {
			return fmt.Sprintf("the client's CPU was saturated (it used %.2f of its %.0f cores): the load generator could not start connections on time (lower %s)",
				e.ClientCores, e.Cores, e.RateSetting)
		}
		return fmt.Sprintf("the machine's CPUs were saturated (%.0f%% busy, the server's share included): the load generator could not start connections on time (lower %s)",
			100*e.MachineBusy, e.RateSetting)
	}
	return fmt.Sprintf("the load generator started connections late (start lateness p99 %.0f µs) with neither the in-flight cap reached nor the CPU saturated: other load on the machine?",
		e.LatenessP99US)
}

// openFigures fills the record's open-loop and duration fields and
// applies the schedule's gates: a failure marks rec failed, with the
// reason in its notes, and comes back as a RateError.
func (r *Measurer) openFigures(rec *results.Record, m *Measured) error {
	hc := r.Case
	rec.Arrival, rec.RateTarget, rec.RateAchieved, rec.MaxInflight = "", nil, nil, 0
	rec.Late, rec.Dropped, rec.DurationUS = nil, nil, nil
	rec.StartLatenessP50US, rec.StartLatenessP99US = nil, nil
	rec.ServiceP50US, rec.ServiceP90US, rec.ServiceP99US, rec.ServiceP999US = nil, nil, nil, nil
	rec.ServiceHistogram, rec.StartLatenessHistogram = "", ""
	w := m.Total.Open
	if hc.Duration > 0 {
		d := m.Total.Wall
		if w != nil {
			d = w.Length
		}
		rec.DurationUS = results.Float(float64(d.Nanoseconds()) / 1e3)
	}
	if hc.Rate == 0 || w == nil {
		return nil
	}
	rec.Arrival, rec.RateTarget, rec.RateAchieved = hc.Arrival, results.Float(hc.Rate), results.Float(w.achieved())
	rec.MaxInflight, rec.Late, rec.Dropped = hc.MaxInflight, results.Int(w.Late), results.Int(w.Dropped)
	if w.Lateness.Count() > 0 {
		rec.StartLatenessP50US = results.Float(w.Lateness.PercentileUS(50))
		rec.StartLatenessP99US = results.Float(w.Lateness.PercentileUS(99))
		rec.StartLatenessHistogram = encodeOrNote(rec, w.Lateness, "start lateness")
	}
	if w.Service.Count() > 0 {
		rec.ServiceP50US = results.Float(w.Service.PercentileUS(50))
		rec.ServiceP90US = results.Float(w.Service.PercentileUS(90))
		rec.ServiceP99US = results.Float(w.Service.PercentileUS(99))
		rec.ServiceP999US = results.Float(w.Service.PercentileUS(99.9))
		rec.ServiceHistogram = encodeOrNote(rec, w.Service, "service time")
	}
	if _, off := ScheduledRate(hc.Rate, hc.WindowLength()); hc.Duration > 0 && !hc.Sharded() && off > MaxRateRounding {
		rec.Notes = append(rec.Notes, fmt.Sprintf("the schedule ran at %s connections per second, not the %s asked: a window of %v starts whole connections (%d), %.1f%% off the rate",
			rateText(w.offered()), strconv.FormatFloat(hc.Rate, 'f', -1, 64), hc.WindowLength(), hc.Handshakes, 100*off))
	}
	e := hc.rateGate(rec, w)
	if e == nil {
		return nil
	}
	rec.Verdict = VerdictFailed
	rec.Notes = append(rec.Notes, "failed: "+e.reason())
	return e
}

// rateGate returns the RateError of windows w that did not hold their
// schedule, with its cause read from the record's figures; nil when
// they did.
func (hc *HandshakeCase) rateGate(rec *results.Record, w *WindowStats) *RateError {
	if w.achieved() >= MinRateShare*w.offered() && float64(w.Dropped) <= MaxDropShare*float64(w.Scheduled) {
		return nil
	}
	e := &RateError{Case: hc.Name, Target: hc.Rate, Offered: w.offered(), Achieved: w.achieved(),
		Scheduled: w.Scheduled, Late: w.Late, Dropped: w.Dropped, MaxInflight: hc.MaxInflight,
		Cores: float64(runtime.GOMAXPROCS(0)), MachineBusy: -1, LatenessP99US: w.Lateness.PercentileUS(99),
		RateSetting: hc.Words.Name("Rate"), InflightSetting: hc.Words.Name("MaxInflight")}
	e.ClientCores = rec.Extra["client_cores_used"]
	if rec.MachineBusy != nil {
		e.MachineBusy = *rec.MachineBusy
	}
	e.Cause = RateCause(e)
	return e
}

// RateCause tells why a schedule was not held: starts that waited for
// the cap blame the server; otherwise a saturated client or machine
// blames the generator's CPU.
func RateCause(e *RateError) string {
	switch {
	case e.Late > 0 || e.Dropped > 0:
		return CauseInflight
	case e.ClientCores >= SaturationShare*e.Cores || e.MachineBusy >= SaturationShare:
		return CauseClientCPU
	}
	return CauseUnknown
}

// encodeOrNote encodes h for rec, or notes why it could not be.
func encodeOrNote(rec *results.Record, h *stats.Latency, what string) string {
	enc, err := h.Encode()
	if err != nil {
		rec.Notes = append(rec.Notes, what+" histogram not encoded: "+err.Error())
		return ""
	}
	return enc
}
