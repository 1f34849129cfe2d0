package report

import (
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/perf/benchfmt"

	"github.com/tlsbench/tlsbench/results"
)

// The benchfmt format is Go's benchmark format
// (https://go.googlesource.com/proposal/+/master/design/14313-benchmark-format.md),
// so that benchstat can read and compare tlsbench results:
//
//	Unit handshakes/s better=higher
//	...
//	goos: linux
//	goarch: amd64
//	cpu: AMD EPYC 7B13
//	go: go1.26.0
//	tlsbench: 0.1.0
//	gomaxprocs: 2
//	kernel: 6.1.0-28-cloud-amd64
//
//	BenchmarkHandshake/tls1.3/resume/c64-2 128 162580 ns/op 6151 handshakes/s 21533 B/op 100 resumed-% ...
//
// The environment is written as configuration lines before the first
// record, and again (only what changed) before a record whose environment
// differs, by golang.org/x/perf/benchfmt's Writer (which prints values as
// Go's %v does: 9.895e+06 from a million up). A handshake case gives one
// line per measured iteration: its name is the case name under
// BenchmarkHandshake (without the "handshake/" prefix) with Go's
// -GOMAXPROCS suffix, its iteration count the handshakes per iteration,
// ns/op the iteration's connect + TLS handshake time per handshake (the
// time its waves took up to their last handshake; a record without that
// figure: its wall time), wall-ns/op its wall time per handshake, the
// exchange after the handshake included, and handshakes/s the same
// iteration's rate of whole connections. The other values are per case, repeated on each line
// and declared assume=exact, so that benchstat neither invents a spread for
// them nor narrows one: B/op (client allocation per handshake), resumed-%
// and server-resumed-% (resumption rates), client-, server- and
// process-cpu-ns/op (CPU per handshake), p50-ns and p99-ns (handshake
// latency), errors (failed connections, when there were any). Where the
// record has its costs per iteration, each line also carries its
// iteration's client-, server- and proxy-cpu-ns/hs and alloc-B/hs, and
// under --count instructions server- and client-instructions/hs (varying, so
// benchstat compares them as it compares the time). Unknown
// values are left out, never written as 0. A throughput case gives one line
// under BenchmarkThroughput with MB/s and the client and server CPU shares
// (client-cpu-%, server-cpu-%). An open-loop case (and each step of a
// search for a sustainable rate) gives one line per window with
// latency-ns, the window's mean latency from the intended start, beside
// the case's rate-target/s, handshakes/s, late and dropped; the answer of
// a search has no figures and no line. The records of an interleaved run carry
// their side as a name key (BenchmarkHandshake/tls1.3/full/c8/side=b-2),
// so that benchstat -col /side sets the sides side by side. A case that
// failed a gate or was not run gives no line (see [Stream.LeftOut]): the
// format has no place for a verdict, and benchstat would compare its
// figures as a result.

// benchUnitMeta is the metadata written, as "Unit" lines, before the first
// use of a unit. ns/op, B/op and MB/s need no "better": benchfmt knows
// them.
var benchUnitMeta = map[string][]string{
	"handshakes/s":           {"better=higher"},
	"wall-ns/op":             {"better=lower"},
	"B/op":                   {"assume=exact"},
	"resumed-%":              {"better=higher", "assume=exact"},
	"server-resumed-%":       {"better=higher", "assume=exact"},
	"client-cpu-ns/op":       {"better=lower", "assume=exact"},
	"server-cpu-ns/op":       {"better=lower", "assume=exact"},
	"process-cpu-ns/op":      {"better=lower", "assume=exact"},
	"p50-ns":                 {"better=lower", "assume=exact"},
	"p99-ns":                 {"better=lower", "assume=exact"},
	"errors":                 {"better=lower", "assume=exact"},
	"latency-ns":             {"better=lower"},
	"rate-target/s":          {"assume=exact"},
	"late":                   {"better=lower", "assume=exact"},
	"dropped":                {"better=lower", "assume=exact"},
	"client-cpu-ns/hs":       {"better=lower"},
	"server-cpu-ns/hs":       {"better=lower"},
	"proxy-cpu-ns/hs":        {"better=lower"},
	"alloc-B/hs":             {"better=lower"},
	"server-instructions/hs": {"better=lower"},
	"client-instructions/hs": {"better=lower"},
}

// iterationCosts are iteration i's costs per handshake, where the record
// has them per iteration (client_cpu_samples_us ...): values that vary
// by iteration, so that benchstat compares each end's cost as it does
// the time, under a unit of its own beside the case's exact figures.
func iterationCosts(rec *results.Record, i int) []benchfmt.Value {
	var vals []benchfmt.Value
	for _, c := range []struct {
		xs    []float64
		scale float64
		unit  string
	}{
		{rec.ClientCPUSamplesUS, 1000, "client-cpu-ns/hs"},
		{rec.ServerCPUSamplesUS, 1000, "server-cpu-ns/hs"},
		{rec.ProxyCPUSamplesUS, 1000, "proxy-cpu-ns/hs"},
		{rec.AllocSamplesBytes, 1, "alloc-B/hs"},
		{rec.ServerInstructionsSamples, 1, "server-instructions/hs"},
		{rec.ClientInstructionsSamples, 1, "client-instructions/hs"},
	} {
		if i < len(c.xs) && len(c.xs) == len(rec.SamplesUS) {
			vals = append(vals, benchValue(c.xs[i]*c.scale, c.unit))
		}
	}
	return vals
}

// addOpenLoop writes an open-loop case (or a step of a search for a
// sustainable rate): one line per window whose value is the window's mean
// latency from the intended start (latency-ns, not ns/op: it is not a
// time per handshake, and no rate can be derived from it), with the
// case's offered and completed rates and its late and dropped counts.
func (e *benchfmtEncoder) addOpenLoop(res *benchfmt.Result, rec *results.Record) error {
	res.Iters = handshakesPerIteration(rec)
	common := []benchfmt.Value{
		benchValue(*rec.RateTarget, "rate-target/s"),
		benchValue(rec.HandshakesPerSec, "handshakes/s"),
	}
	if rec.Late != nil {
		common = append(common, benchValue(float64(*rec.Late), "late"))
	}
	if rec.Dropped != nil {
		common = append(common, benchValue(float64(*rec.Dropped), "dropped"))
	}
	common = append(common, handshakeCaseValues(rec)...)
	for i, us := range rec.SamplesUS {
		vals := append([]benchfmt.Value{benchValue(us*1000, "latency-ns")}, common...)
		vals = append(vals, iterationCosts(rec, i)...)
		if err := e.write(res, vals); err != nil {
			return err
		}
	}
	return nil
}

// benchfmtEncoder writes records with golang.org/x/perf's benchfmt.Writer,
// which writes the configuration lines that changed before a result.
type benchfmtEncoder struct {
	w     *benchfmt.Writer
	units map[string]bool // units whose metadata was written
}

func newBenchfmtEncoder(w io.Writer) *benchfmtEncoder {
	return &benchfmtEncoder{w: benchfmt.NewWriter(w), units: map[string]bool{}}
}

func (e *benchfmtEncoder) add(rec *results.Record) error {
	res := &benchfmt.Result{
		Config: benchConfig(rec.Env),
		Name:   benchfmt.Name(strings.TrimPrefix(BenchName(rec), "Benchmark")),
		Iters:  1,
	}
	switch {
	case rec.Kind == results.KindThroughput:
		return e.write(res, throughputValues(rec))
	case rec.Kind == results.KindRateSearch:
		return nil // an answer without figures of its own: its steps have them
	case rec.RateTarget != nil:
		return e.addOpenLoop(res, rec)
	}
	res.Iters = handshakesPerIteration(rec)
	samples := rec.SamplesUS
	if len(samples) == 0 && rec.MeanUS > 0 {
		samples = []float64{rec.MeanUS}
	}
	// ns/op is the handshake (connect + TLS handshake) where the record
	// has it; the wall time per connection is then wall-ns/op.
	hs := Headline(rec)
	if !hs.Handshake || len(hs.Samples) != len(samples) {
		hs.Samples = nil
	}
	common := handshakeCaseValues(rec)
	for i, us := range samples {
		vals := []benchfmt.Value{benchValue(us*1000, "ns/op")}
		if hs.Samples != nil {
			vals = []benchfmt.Value{benchValue(hs.Samples[i]*1000, "ns/op"), benchValue(us*1000, "wall-ns/op")}
		}
		if us > 0 {
			vals = append(vals, benchValue(1e6/us, "handshakes/s"))
		}
		vals = append(vals, iterationCosts(rec, i)...)
		if err := e.write(res, append(vals, common...)); err != nil {
			return err
		}
	}
	return nil
}

func (e *benchfmtEncoder) close() error { return nil }

// write writes the metadata of units not seen yet, then res with vals.
func (e *benchfmtEncoder) write(res *benchfmt.Result, vals []benchfmt.Value) error {
	if len(vals) == 0 {
		return nil // a line without measurements is not a benchmark line
	}
	for _, v := range vals {
		if e.units[v.Unit] {
			continue
		}
		e.units[v.Unit] = true
		for _, meta := range benchUnitMeta[v.Unit] {
			key, value, _ := strings.Cut(meta, "=")
			m := &benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: v.Unit, Key: key}, OrigUnit: v.Unit, Value: value}
			if err := e.w.Write(m); err != nil {
				return err
			}
		}
	}
	res.Values = vals
	return e.w.Write(res)
}

// benchValue is v in unit, rounded as benchNum does: the Writer prints
// every digit of a float64.
func benchValue(v float64, unit string) benchfmt.Value {
	r, err := strconv.ParseFloat(benchNum(v), 64)
	if err != nil {
		r = v
	}
	return benchfmt.Value{Value: r, Unit: unit}
}

func throughputValues(rec *results.Record) []benchfmt.Value {
	var vals []benchfmt.Value
	if rec.MBps != nil {
		vals = append(vals, benchValue(*rec.MBps, "MB/s"))
	}
	if rec.ClientCPUPct != nil {
		vals = append(vals, benchValue(*rec.ClientCPUPct, "client-cpu-%"))
	}
	if rec.ServerCPUPct != nil {
		vals = append(vals, benchValue(*rec.ServerCPUPct, "server-cpu-%"))
	}
	if rec.Errors > 0 {
		vals = append(vals, benchValue(float64(rec.Errors), "errors"))
	}
	return vals
}

func handshakesPerIteration(r *results.Record) int {
	if r.Iterations <= 0 || r.Handshakes <= 0 {
		return 1
	}
	return max(1, int(r.Handshakes/int64(r.Iterations)))
}

// handshakeCaseValues are the values of a handshake case that are measured
// once per case, not per iteration.
func handshakeCaseValues(r *results.Record) []benchfmt.Value {
	vals := []benchfmt.Value{
		benchValue(math.Round(r.AllocBytes), "B/op"),
		benchValue(r.ResumptionRate*100, "resumed-%"),
	}
	if r.ServerResumed != nil && r.Handshakes > 0 {
		vals = append(vals, benchValue(float64(*r.ServerResumed)/float64(r.Handshakes)*100, "server-resumed-%"))
	}
	for _, c := range []struct {
		v    *float64
		unit string
	}{
		{r.ClientCPUUS, "client-cpu-ns/op"},
		{r.ServerCPUUS, "server-cpu-ns/op"},
		{r.ProcessCPUUS, "process-cpu-ns/op"},
	} {
		if c.v != nil {
			vals = append(vals, benchValue(*c.v*1000, c.unit))
		}
	}
	if r.P50US > 0 || r.P99US > 0 {
		vals = append(vals, benchValue(r.P50US*1000, "p50-ns"), benchValue(r.P99US*1000, "p99-ns"))
	}
	if r.Errors > 0 {
		vals = append(vals, benchValue(float64(r.Errors), "errors"))
	}
	return vals
}

// benchConfig is the environment as configuration lines. Keys start with a
// lower-case letter and contain no spaces or upper-case letters, as the
// format requires; empty values are left out (an empty value deletes a key).
func benchConfig(env results.Env) []benchfmt.Config {
	var kv []benchfmt.Config
	add := func(k, v string) {
		v = strings.TrimSpace(results.Printable(strings.Map(func(r rune) rune {
			if r == '\n' || r == '\r' {
				return ' '
			}
			return r
		}, v)))
		if v != "" {
			kv = append(kv, benchfmt.Config{Key: k, Value: []byte(v), File: true})
		}
	}
	add("goos", env.GOOS)
	add("goarch", env.GOARCH)
	add("cpu", env.CPUModel)
	add("go", env.GoVersion)
	add("tlsbench", env.TLSBenchVersion)
	if env.GOMAXPROCS > 0 {
		add("gomaxprocs", strconv.Itoa(env.GOMAXPROCS))
	}
	add("kernel", env.Kernel)
	for _, name := range slices.Sorted(maps.Keys(env.Peers)) {
		add("peer-"+configKey(name), env.Peers[name])
	}
	if env.Insecure {
		add("insecure", "true")
	}
	return kv
}

// configKey makes s usable after a fixed lower-case prefix in a
// configuration key: lower case, and '-' for spaces and colons.
func configKey(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == ':' {
			return '-'
		}
		return unicode.ToLower(r)
	}, results.Printable(s))
}

// BenchName is the benchmark name of a record: the case name under
// BenchmarkHandshake or BenchmarkThroughput, without the kind prefix, with
// white space replaced as Go's testing package does, and Go's -GOMAXPROCS
// suffix (left out for GOMAXPROCS 1, as Go does, unless the name would then
// end in something that reads as one).
func BenchName(r *results.Record) string {
	base, prefix := "BenchmarkHandshake", "handshake/"
	if r.Kind == results.KindThroughput {
		base, prefix = "BenchmarkThroughput", "throughput/"
	}
	rest := strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '_'
		}
		if !unicode.IsPrint(r) {
			return -1
		}
		return r
	}, strings.TrimPrefix(r.Name, prefix))
	name := base
	if rest != "" {
		name += "/" + strings.TrimPrefix(rest, "/")
	}
	if r.Side != "" {
		// A name key: benchstat keeps the sides apart by default and
		// splits them into columns with -col /side.
		name += "/side=" + r.Side
	}
	procs := max(r.Env.GOMAXPROCS, 1)
	if procs > 1 || endsLikeProcs(name) {
		name += "-" + strconv.Itoa(procs)
	}
	return name
}

// endsLikeProcs reports whether name ends in "-" and digits, which a reader
// would take for a GOMAXPROCS suffix.
func endsLikeProcs(name string) bool {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	return i < len(name) && i > 0 && name[i-1] == '-'
}

// benchNum formats a value as Go's testing package does (more decimals for
// smaller values, none from 1000 up), except that whole numbers (counts,
// 100%) have no decimals.
func benchNum(v float64) string {
	a := math.Abs(v)
	prec := 0
	switch {
	case a == 0 || a >= 999.95 || (v == math.Trunc(v) && a < 1e15):
		prec = 0
	case a >= 99.995:
		prec = 1
	case a >= 9.9995:
		prec = 2
	case a >= 0.99995:
		prec = 3
	case a >= 0.099995:
		prec = 4
	case a >= 0.0099995:
		prec = 5
	case a >= 0.00099995:
		prec = 6
	default:
		prec = 7
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}
