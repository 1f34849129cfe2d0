package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/tlsbench/tlsbench/stats"
)

// RequiredFields are the fields every record tlsbench writes has had from
// the start (the results contract's core). A line without one of them was
// not written by tlsbench, or was cut or edited: reading its absence as a
// zero would show a made-up number, so Decode refuses it.
var RequiredFields = []string{
	"name", "kind", "tls_version", "resume", "mutual", "concurrency", "key_type", "group",
	"transport", "handshakes", "errors", "resumed", "resumption_rate", "server_resumed",
	"mean_us", "error_us", "stddev_us", "median_us", "min_us", "max_us", "p50_us", "p90_us",
	"p99_us", "p999_us", "handshakes_per_sec", "client_cpu_us", "server_cpu_us",
	"alloc_bytes", "samples_us", "env",
}

// nullable maps a JSON field name of Record (and of Env, prefixed "env.")
// to whether null is a legal value for it: pointers (unknown values),
// slices and maps. Anything else has a value in every record, so a null
// there would be read as a silent zero.
var nullable = func() map[string]bool {
	m := map[string]bool{}
	addFields(m, reflect.TypeOf(Record{}), "")
	addFields(m, reflect.TypeOf(Env{}), "env.")
	return m
}()

func addFields(m map[string]bool, t reflect.Type, prefix string) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		switch f.Type.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			m[prefix+name] = true
		default:
			m[prefix+name] = false
		}
	}
}

// checkFields checks the fields present on one line: every required field
// is there, and none that always has a value is null.
func checkFields(line []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(line, &top); err != nil {
		return fmt.Errorf("not a tlsbench result: %v", err)
	}
	var missing []string
	for _, f := range RequiredFields {
		if _, ok := top[f]; !ok {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return missingError(missing)
	}
	if err := checkNulls(top, ""); err != nil {
		return err
	}
	if env := top["env"]; !isNull(env) {
		var em map[string]json.RawMessage
		if err := json.Unmarshal(env, &em); err == nil {
			return checkNulls(em, "env.")
		}
	}
	return nil
}

func missingError(missing []string) error {
	if len(missing) == 1 {
		return fmt.Errorf("required field %q is missing", missing[0])
	}
	shown := missing
	more := ""
	if len(shown) > 5 {
		shown, more = shown[:5], fmt.Sprintf(" and %d more", len(missing)-5)
	}
	return fmt.Errorf("required fields %s%s are missing", strings.Join(quoteAll(shown), ", "), more)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func checkNulls(fields map[string]json.RawMessage, prefix string) error {
	var bad []string
	for k, v := range fields {
		if ok, known := nullable[prefix+k]; known && !ok && isNull(v) {
			bad = append(bad, prefix+k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	return fmt.Errorf("field %q is null, but it always has a value (only unknown measurements may be null)", bad[0])
}

func isNull(v json.RawMessage) bool { return string(v) == "null" }

// ResumptionRateTolerance is how far resumption_rate may be from
// resumed/handshakes: rounding of a rate written with a few decimals.
const ResumptionRateTolerance = 0.0005

// Validate reports the first contradiction within r (counts that cannot
// be, a rate that disagrees with its counts, statistics out of order), or
// nil. A record that contradicts itself cannot be trusted as a whole, so
// the reports refuse it rather than pick one of its numbers.
func (r *Record) Validate() error {
	for _, check := range []func(*Record) error{checkKind, checkCounts, checkResumption, checkMeasures, checkSummary,
		checkSamples, checkHandshakeFigure, checkCostSamples, checkHandshakes, checkMachine, checkHistogram, checkPhases} {
		if err := check(r); err != nil {
			return err
		}
	}
	return nil
}

func checkKind(r *Record) error {
	switch r.Kind {
	case KindHandshake, KindThroughput, KindRateStep:
	case KindRateSearch:
		return checkRateSearch(r)
	default:
		return fmt.Errorf("kind %q: want %q, %q, %q or %q", r.Kind, KindHandshake, KindThroughput, KindRateStep, KindRateSearch)
	}
	switch {
	case r.TLSVersion != "1.2" && r.TLSVersion != "1.3":
		return fmt.Errorf("tls_version %q: want \"1.2\" or \"1.3\", the versions tlsbench measures", r.TLSVersion)
	case r.Concurrency < 1 && r.RateTarget == nil:
		return fmt.Errorf("concurrency is %d: a case runs at least one connection at a time", r.Concurrency)
	case r.RateTarget != nil && (r.Concurrency != 0 || !(*r.RateTarget > 0)):
		return fmt.Errorf("rate_target %v with concurrency %d: an open-loop case has a rate above 0 and no concurrency", *r.RateTarget, r.Concurrency)
	}
	return nil
}

// checkRateSearch checks the answer of a rate search: a bracket in
// order, and no figures of its own.
func checkRateSearch(r *Record) error {
	switch {
	case r.TLSVersion != "1.2" && r.TLSVersion != "1.3":
		return fmt.Errorf("tls_version %q: want \"1.2\" or \"1.3\", the versions tlsbench measures", r.TLSVersion)
	case r.SLO == "":
		return errors.New("a rate search names its goal (slo)")
	case r.Steps < 1:
		return fmt.Errorf("steps is %d: a rate search measures at least one rate", r.Steps)
	case r.RateSustained != nil && !(*r.RateSustained > 0):
		return fmt.Errorf("rate_sustained %v: a rate is above 0", *r.RateSustained)
	case r.RateFailed != nil && !(*r.RateFailed > 0):
		return fmt.Errorf("rate_failed %v: a rate is above 0", *r.RateFailed)
	case r.RateSustained != nil && r.RateFailed != nil && *r.RateFailed <= *r.RateSustained:
		return fmt.Errorf("rate_failed %v is not above rate_sustained %v: a goal met at a rate is met below it", *r.RateFailed, *r.RateSustained)
	case r.Iterations != 0 || len(r.SamplesUS) != 0 || r.Handshakes != 0:
		return errors.New("a rate search has no figures of its own: its steps' records hold them")
	}
	return nil
}

func checkCounts(r *Record) error {
	counts := []struct {
		name string
		v    int64
	}{
		{"handshakes", r.Handshakes}, {"errors", r.Errors}, {"resumed", r.Resumed},
		{"concurrency", int64(r.Concurrency)}, {"iterations", int64(r.Iterations)},
		{"client_identities", int64(r.ClientIdentities)}, {"buffer_bytes", int64(r.BufferBytes)},
	}
	if r.ServerResumed != nil {
		counts = append(counts, struct {
			name string
			v    int64
		}{"server_resumed", *r.ServerResumed})
	}
	for _, c := range counts {
		if c.v < 0 {
			return fmt.Errorf("%s is %d: a count cannot be negative", c.name, c.v)
		}
	}
	if len(r.ErrorsByKind) > 0 {
		var sum int64
		for k, v := range r.ErrorsByKind {
			if v < 0 {
				return fmt.Errorf("errors_by_kind %q is %d: a count cannot be negative", k, v)
			}
			sum += v
		}
		if sum != r.Errors {
			return fmt.Errorf("errors is %d but errors_by_kind adds up to %d", r.Errors, sum)
		}
	}
	// null samples are unknown; a list, even an empty one, holds one
	// value per iteration.
	if n := len(r.SamplesUS); r.SamplesUS != nil && n != r.Iterations {
		return fmt.Errorf("iterations is %d but samples_us holds %d values (one per iteration)", r.Iterations, n)
	}
	return nil
}

func checkResumption(r *Record) error {
	switch {
	case !r.Resume && r.Resumed > 0:
		return fmt.Errorf("resume is false but resumed is %d: a case that did not ask for resumption cannot have resumed", r.Resumed)
	case r.Resumed > r.Handshakes:
		return fmt.Errorf("resumed (%d) is more than handshakes (%d)", r.Resumed, r.Handshakes)
	case r.ServerResumed != nil && *r.ServerResumed > r.Handshakes+r.Errors:
		// The server may have resumed a handshake whose connection then
		// failed on the client's side (counted in errors), never more
		// than the connections the client made.
		return fmt.Errorf("server_resumed (%d) is more than handshakes and errors together (%d + %d): a server resumes at most one handshake per connection", *r.ServerResumed, r.Handshakes, r.Errors)
	case math.IsNaN(r.ResumptionRate) || r.ResumptionRate < 0 || r.ResumptionRate > 1:
		return fmt.Errorf("resumption_rate %v is not between 0 and 1", r.ResumptionRate)
	}
	want := 0.0
	if r.Handshakes > 0 {
		want = float64(r.Resumed) / float64(r.Handshakes)
	}
	if math.Abs(r.ResumptionRate-want) > ResumptionRateTolerance {
		return fmt.Errorf("resumption_rate %v disagrees with resumed/handshakes = %d/%d = %.4f", r.ResumptionRate, r.Resumed, r.Handshakes, want)
	}
	return nil
}

// checkMeasures refuses negative times, rates, CPU and allocations: each
// is a quantity of something that happened.
func checkMeasures(r *Record) error {
	vals := []struct {
		name string
		v    *float64
	}{
		{"mean_us", &r.MeanUS}, {"error_us", r.ErrorUS}, {"stddev_us", &r.StddevUS},
		{"median_us", &r.MedianUS}, {"min_us", &r.MinUS}, {"max_us", &r.MaxUS},
		{"p50_us", &r.P50US}, {"p90_us", &r.P90US}, {"p99_us", &r.P99US}, {"p999_us", &r.P999US},
		{"handshakes_per_sec", &r.HandshakesPerSec}, {"client_cpu_us", r.ClientCPUUS},
		{"server_cpu_us", r.ServerCPUUS}, {"process_cpu_us", r.ProcessCPUUS},
		{"alloc_bytes", &r.AllocBytes}, {"server_alloc_bytes", r.ServerAllocBytes},
		{"mbps", r.MBps}, {"client_cpu_pct", r.ClientCPUPct}, {"server_cpu_pct", r.ServerCPUPct},
		{"handshake_error_us", r.HandshakeErrorUS}, {"handshake_stddev_us", r.HandshakeStddevUS},
	}
	for _, m := range vals {
		if m.v != nil && *m.v < 0 {
			return fmt.Errorf("%s is %v: it cannot be negative", m.name, *m.v)
		}
	}
	for i, s := range r.SamplesUS {
		if s < 0 {
			return fmt.Errorf("samples_us[%d] is %v: a time cannot be negative", i, s)
		}
	}
	return nil
}

// checkSummary checks that the summary statistics are in order: min <=
// median, mean <= max (with room for the rounding of hand-written values).
func checkSummary(r *Record) error {
	if r.MinUS == 0 && r.MaxUS == 0 {
		return nil // not summarised (a record without iterations)
	}
	slack := 1e-9*r.MaxUS + 0.001
	if r.MinUS > r.MaxUS+slack {
		return fmt.Errorf("min_us %v is more than max_us %v", r.MinUS, r.MaxUS)
	}
	for _, v := range []struct {
		name string
		v    float64
	}{{"mean_us", r.MeanUS}, {"median_us", r.MedianUS}} {
		if v.v < r.MinUS-slack || v.v > r.MaxUS+slack {
			return fmt.Errorf("%s %v is outside min_us..max_us (%v..%v)", v.name, v.v, r.MinUS, r.MaxUS)
		}
	}
	return nil
}

// sameValue reports whether a value written in a record agrees with the
// one recomputed from its samples: within a relative 1e-6 (float
// arithmetic) or the rounding of a value written with three decimals.
func sameValue(written, computed float64) bool {
	return math.Abs(written-computed) <= 1e-6*math.Max(math.Abs(written), math.Abs(computed))+0.0005
}

// checkSamples recomputes the summary statistics from the samples, when
// the record has them: a mean or a median that its samples do not give
// was not measured together with them.
func checkSamples(r *Record) error {
	if len(r.SamplesUS) == 0 {
		return nil
	}
	s := stats.Summarize(r.SamplesUS)
	for _, v := range []struct {
		name          string
		written, from float64
	}{{"mean_us", r.MeanUS, s.Mean}, {"median_us", r.MedianUS, s.Median}, {"min_us", r.MinUS, s.Min}, {"max_us", r.MaxUS, s.Max}} {
		if math.IsNaN(v.from) || !sameValue(v.written, v.from) {
			return fmt.Errorf("%s is %v but the samples in samples_us give %v", v.name, v.written, v.from)
		}
	}
	return nil
}

// checkCostSamples checks the costs per iteration: one value per sample
// of samples_us, none negative or not a number.
func checkCostSamples(r *Record) error {
	for _, f := range FoldedFields() {
		xs := f.Samples(r)
		if xs == nil {
			continue
		}
		if len(xs) != len(r.SamplesUS) {
			return fmt.Errorf("%s holds %d values but samples_us %d (one per iteration)", f.Name, len(xs), len(r.SamplesUS))
		}
		for i, x := range xs {
			if !(x >= 0) || math.IsInf(x, 0) {
				return fmt.Errorf("%s[%d] is %v: a cost is a finite number of 0 or more", f.Name, i, x)
			}
		}
	}
	return nil
}

// checkHandshakeFigure checks the handshake figure against its samples
// and the wall time: one value per iteration, none negative, the
// statistics those values give, and no iteration whose handshakes took
// longer than the iteration itself (they are part of it).
func checkHandshakeFigure(r *Record) error {
	xs := r.HandshakeSamplesUS
	if xs == nil {
		return nil
	}
	if len(xs) != r.Iterations || len(xs) != len(r.SamplesUS) {
		return fmt.Errorf("handshake_samples_us holds %d values but iterations is %d and samples_us holds %d (one per iteration)", len(xs), r.Iterations, len(r.SamplesUS))
	}
	for i, x := range xs {
		switch {
		case x < 0 || math.IsNaN(x):
			return fmt.Errorf("handshake_samples_us[%d] is %v: a time cannot be negative", i, x)
		case x > r.SamplesUS[i]*(1+1e-6)+0.0005:
			return fmt.Errorf("handshake_samples_us[%d] is %v, more than the iteration's wall time per handshake %v: the handshakes are part of the iteration", i, x, r.SamplesUS[i])
		}
	}
	if len(xs) == 0 {
		return nil
	}
	s := stats.Summarize(xs)
	for _, v := range []struct {
		name    string
		written *float64
		from    float64
	}{{"handshake_mean_us", r.HandshakeMeanUS, s.Mean}, {"handshake_median_us", r.HandshakeMedianUS, s.Median},
		{"handshake_min_us", r.HandshakeMinUS, s.Min}, {"handshake_max_us", r.HandshakeMaxUS, s.Max}} {
		switch {
		case v.written == nil:
			return fmt.Errorf("%s is absent but handshake_samples_us holds %d values", v.name, len(xs))
		case !sameValue(*v.written, v.from):
			return fmt.Errorf("%s is %v but the samples in handshake_samples_us give %v", v.name, *v.written, v.from)
		}
	}
	return nil
}

// checkHandshakes checks what a closed-loop handshake case's counts and
// times imply of each other. Each sample is an iteration's wall time over its
// handshakes, so the case's handshakes per second lies between the
// inverses of the largest and the smallest sample whatever the split of
// handshakes among iterations; the bound is loose on purpose (5%).
func checkHandshakes(r *Record) error {
	if r.Kind != KindHandshake {
		return nil
	}
	if r.Handshakes == 0 && (r.MeanUS != 0 || r.Iterations > 0) {
		return fmt.Errorf("handshakes is 0 but the case has %d iterations and a mean of %v µs: a time per handshake needs handshakes", r.Iterations, r.MeanUS)
	}
	// An open-loop case's samples are mean latencies from the intended
	// start, which say nothing of its rate: its schedule sets that.
	if r.Handshakes == 0 || len(r.SamplesUS) == 0 || math.IsNaN(r.HandshakesPerSec) || r.RateTarget != nil {
		return nil
	}
	lo, hi := slices.Min(r.SamplesUS), slices.Max(r.SamplesUS)
	if hi <= 0 {
		return nil // samples of zero: checkSamples and checkMeasures judge them
	}
	fastest, slowest := math.Inf(1), 1e6/hi
	if lo > 0 {
		fastest = 1e6 / lo
	}
	if r.HandshakesPerSec > 1.05*fastest || r.HandshakesPerSec < 0.95*slowest {
		return fmt.Errorf("handshakes_per_sec %v cannot be: samples_us of %v to %v µs per handshake allow %.4g to %.4g", r.HandshakesPerSec, lo, hi, slowest, fastest)
	}
	return nil
}

// checkMachine checks the machine's load: shares of CPU time, a count
// of CPUs, and its listen-queue counts.
func checkMachine(r *Record) error {
	if r.CPUsAvailable < 0 {
		return fmt.Errorf("cpus_available is %d: a count cannot be negative", r.CPUsAvailable)
	}
	for _, v := range []struct {
		name string
		v    *float64
	}{{"machine_busy", r.MachineBusy}, {"other_cpu_share", r.OtherCPUShare}} {
		if v.v != nil && (math.IsNaN(*v.v) || *v.v < 0 || *v.v > 1) {
			return fmt.Errorf("%s %v is not between 0 and 1 (a share of the CPUs' time)", v.name, *v.v)
		}
	}
	for _, c := range []struct {
		name string
		v    *int64
	}{{"listen_overflows", r.ListenOverflows}, {"listen_drops", r.ListenDrops}} {
		if c.v != nil && *c.v < 0 {
			return fmt.Errorf("%s is %d: a count cannot be negative", c.name, *c.v)
		}
	}
	return nil
}

// checkHistogram checks that the latency histogram, when there is one,
// decodes: the percentiles and the report's curves come from it.
func checkHistogram(r *Record) error {
	if r.Histogram == "" {
		return nil
	}
	if _, err := stats.CountEncoded(r.Histogram); err != nil {
		return fmt.Errorf("histogram is not a latency histogram tlsbench writes: %s", strings.TrimPrefix(err.Error(), "stats: decode latency histogram: "))
	}
	return nil
}

// checkPhases checks each phase as a distribution: a count that cannot
// be negative, percentiles in order up to the maximum, and a histogram
// that decodes to the same count.
func checkPhases(r *Record) error {
	for _, name := range slices.Sorted(maps.Keys(r.Phases)) {
		p := r.Phases[name]
		qs := []float64{p.P50US, p.P90US, p.P99US, p.P999US, p.MaxUS}
		switch {
		case p.Count < 0:
			return fmt.Errorf("phases.%s.count is %d: a count cannot be negative", name, p.Count)
		case p.Count > 0 && (qs[0] < 0 || !slices.IsSorted(qs)):
			return fmt.Errorf("phases.%s: p50_us, p90_us, p99_us, p999_us and max_us (%v) are not in order from 0 up", name, qs)
		case p.Histogram == "":
			continue
		}
		// Checked and counted without building the histogram: a
		// reader checks every phase of every record.
		n, err := stats.CountEncoded(p.Histogram)
		if err != nil {
			return fmt.Errorf("phases.%s.histogram is not a latency histogram tlsbench writes: %s", name, strings.TrimPrefix(err.Error(), "stats: decode latency histogram: "))
		}
		if n != p.Count {
			return fmt.Errorf("phases.%s.count is %d but its histogram holds %d", name, p.Count, n)
		}
	}
	return nil
}
