package report

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/results"
)

// A Document is the content of a report for people, independent of how it
// is laid out: the table and markdown formats render the same document.
type Document struct {
	Env []KeyValue // the environment of the first record
	// envTitle heads env in formats that title it ("Environment" when
	// empty); a comparison's header lines are not an environment.
	EnvTitle      string
	EnvNote       string // set when records differ in environment
	Blocks        []Block
	TargetSummary string // the last line: how many cases reached their target error
}

type KeyValue struct{ Key, Value string }

// A Block is a titled table or a titled list of items.
type Block struct {
	Title string
	Table *Grid
	Items []string
	// Brief holds, item by item, the shorter form a narrow text layout
	// shows of a long item ("" keeps it); nil when none has one.
	Brief []string
	// Detail marks a table of detail (phases, ratios of figures shown
	// above): a narrow text layout leaves it out whole, saying so,
	// rather than print a second table of every case.
	Detail bool
}

type Align int

const (
	AlignLeft Align = iota
	AlignRight
)

type Column struct {
	Title string
	Unit  string // shown under or after the title; may be empty
	Align Align
	// Group heads a run of adjacent columns that measure one thing
	// ("per handshake", "latency"), so that each title is read as part
	// of it: a mean beside a p99 is not a mean latency.
	Group string
	// Rank orders the columns a narrow text layout leaves out: the
	// highest first, never those of rank 0 (the name, the headline).
	Rank int
}

type Grid struct {
	Cols []Column
	Rows [][]string
}

// BuildDocument derives the report from recs, in their order.
func BuildDocument(recs []results.Record) Document {
	var d Document
	if len(recs) == 0 {
		d.Blocks = append(d.Blocks, Block{Items: []string{"no results"}})
		return d
	}
	d.Env = EnvHeader(recs[0].Env)
	if diff := EnvDiff(recs); len(diff) > 0 {
		d.EnvNote = fmt.Sprintf("records differ in environment (%s); shown is the first record's", strings.Join(diff, ", "))
	}

	// hs are the closed-loop handshake cases, ol the open-loop ones,
	// search the records of searches for a sustainable rate: each group
	// has its own table, since their figures mean different things.
	var hs, ol, search, tp []*results.Record
	for i := range recs {
		r := &recs[i]
		switch {
		case r.Kind == results.KindThroughput:
			tp = append(tp, r)
		case SearchRecord(r):
			search = append(search, r)
		case OpenLoop(r):
			ol = append(ol, r)
		default:
			hs = append(hs, r)
		}
	}
	d.Blocks = AppendItems(d.Blocks, "Sides of an interleaved run", sidesItems(recs))
	achieved := achievedErrors(hs)
	if len(hs) > 0 {
		t, legend := handshakeTable(hs, achieved)
		items := append([]string{perIterationNote}, legend...)
		if len(achieved) > 0 {
			items = append(items, targetNote)
		}
		d.Blocks = append(d.Blocks, Block{Title: "Handshakes", Table: t, Items: items})
	}
	if len(ol) > 0 {
		t, legend := openLoopTable(ol)
		d.Blocks = append(d.Blocks, Block{Title: "Open-loop handshakes", Table: t, Items: legend})
	}
	d.Blocks = append(d.Blocks, searchBlocks(search)...)
	if t := phaseTable(append(slices.Clip(hs), ol...)); t != nil {
		items := phaseLegend
		if slices.ContainsFunc(ol, func(r *results.Record) bool { return len(r.Phases) > 0 }) {
			items = append(slices.Clip(items), openLoopPhaseNote)
		}
		if slices.ContainsFunc(t.Cols, func(c Column) bool { return c.Title == firstResponseTitle }) {
			items = append(slices.Clip(items), firstResponseNote)
		}
		if slices.ContainsFunc(t.Cols, func(c Column) bool { return c.Title == exchangeTitle }) {
			items = append(slices.Clip(items), exchangeNote)
		}
		d.Blocks = append(d.Blocks, Block{Title: "Phases of a handshake", Table: t, Items: items, Detail: true})
	}
	if t := partsTable(append(slices.Clip(hs), ol...)); t != nil {
		d.Blocks = append(d.Blocks, Block{Title: "Parts of a mix", Table: t, Items: partsLegend, Detail: true})
	}
	if len(tp) > 0 {
		t, legend := throughputTable(tp)
		d.Blocks = append(d.Blocks, Block{Title: "Throughput", Table: t, Items: legend})
	}
	d.Blocks = AppendItems(d.Blocks, "Errors by kind", errorItems(recs))
	d.Blocks = AppendItems(d.Blocks, "Resumption: client and server disagree", disagreementItems(append(slices.Clip(hs), ol...)))
	d.Blocks = AppendItems(d.Blocks, "CPU of the single process (memory transport; client and server together)", processCPUItems(append(slices.Clip(hs), ol...)))
	d.TargetSummary = targetSummary(hs, achieved)
	d.Blocks = AppendItems(d.Blocks, "Notes", noteItems(recs))
	if t, legend := ratioTable(hs); t != nil {
		flagRatios(t, hs)
		d.Blocks = append(d.Blocks, Block{Title: "Full vs resumed handshakes (mean µs of connect + TLS handshake)", Table: t, Items: legend, Detail: true})
	}
	for i := range d.Blocks {
		d.Blocks[i].Brief = briefs(d.Blocks[i].Items)
	}
	return d
}

func AppendItems(blocks []Block, title string, items []string) []Block {
	if len(items) == 0 {
		return blocks
	}
	return append(blocks, Block{Title: title, Items: items})
}

func OrNull(s string) string {
	if s == "" {
		return Null
	}
	return s
}

func EnvHeader(e results.Env) []KeyValue {
	goLine := OrNull(e.GoVersion)
	if e.GOOS != "" || e.GOARCH != "" {
		goLine += " " + e.GOOS + "/" + e.GOARCH
	}
	procs := strconv.Itoa(e.GOMAXPROCS)
	if e.NumCPU > 0 {
		procs += fmt.Sprintf(" (%d CPUs)", e.NumCPU)
	}
	kv := []KeyValue{
		{"tlsbench", OrNull(e.TLSBenchVersion)},
		{"go", goLine},
		{"gomaxprocs", procs},
		{"cpu", OrNull(e.CPUModel)},
		{"kernel", OrNull(e.Kernel)},
	}
	if len(e.Peers) > 0 {
		var peers []string
		for _, name := range slices.Sorted(maps.Keys(e.Peers)) {
			peers = append(peers, name+" "+e.Peers[name])
		}
		kv = append(kv, KeyValue{"peers", strings.Join(peers, ", ")})
	}
	if e.Insecure {
		kv = append(kv, KeyValue{"insecure", "certificate verification of the target was off (--insecure)"})
	}
	if e.Started != "" {
		kv = append(kv, KeyValue{"started", e.Started})
	}
	return kv
}

// EnvDiff names the environment fields in which some record differs from
// the first. The start time is expected to differ and is not compared.
func EnvDiff(recs []results.Record) []string {
	first := recs[0].Env
	fields := []struct {
		name string
		same func(a, b *results.Env) bool
	}{
		{"tlsbench", func(a, b *results.Env) bool { return a.TLSBenchVersion == b.TLSBenchVersion }},
		{"go", func(a, b *results.Env) bool { return a.GoVersion == b.GoVersion }},
		{"goos/goarch", func(a, b *results.Env) bool { return a.GOOS == b.GOOS && a.GOARCH == b.GOARCH }},
		{"gomaxprocs", func(a, b *results.Env) bool { return a.GOMAXPROCS == b.GOMAXPROCS && a.NumCPU == b.NumCPU }},
		{"cpu", func(a, b *results.Env) bool { return a.CPUModel == b.CPUModel }},
		{"kernel", func(a, b *results.Env) bool { return a.Kernel == b.Kernel }},
		{"peers", func(a, b *results.Env) bool { return maps.Equal(a.Peers, b.Peers) }},
		{"insecure", func(a, b *results.Env) bool { return a.Insecure == b.Insecure }},
	}
	var diff []string
	for _, f := range fields {
		for i := 1; i < len(recs); i++ {
			if !f.same(&first, &recs[i].Env) {
				diff = append(diff, f.name)
				break
			}
		}
	}
	return diff
}

// The headline columns' groups: the figure per handshake is an
// iteration's time over its handshakes, an inverse throughput, which
// beside a latency's percentiles would read as a mean latency.
const (
	perHandshake = "per handshake"
	latency      = "latency"
)

// perIterationNote says what the columns of the handshake table measure:
// the summary statistics and the percentiles do not describe the same
// values, and read together they would mislead; perIterationBrief says
// it in a line and a half.
const (
	perIterationNote  = "per handshake: of connect + TLS handshake, each iteration's time (its waves up to their last handshake) / its handshakes, an inverse throughput, not a latency; mean, error (99.9% confidence half-width), stddev, median, min, max of the iterations; latency: p50, p99 of single handshakes; conn/s: whole connections per second (handshake, request, answer, close); wall: the mean of each iteration's wall time / its handshakes, the exchange after the handshake included"
	perIterationBrief = "per handshake: an iteration's time / its handshakes (an inverse throughput, not a latency), error: 99.9% confidence; latency: of single handshakes"
)

// targetNote explains the error cells of cases measured towards a target.
const targetNote = "error (x%): the precision reached, the 99.9% error as a share of the mean (of side b against side a, b/a, in an interleaved run); ! marks one above its target error (--target-error), and its row is flagged noisy"

// NoisyError is the share of the mean above which the error of a case
// measured without a target error (the half-width of its confidence
// interval) makes its mean too uncertain to read: its row is "noisy".
const NoisyError = 0.10

// VerdictFailed is the record's verdict for a case that failed a gate.
const VerdictFailed = "failed"

func handshakeTable(recs []*results.Record, achieved map[*results.Record]float64) (*Grid, []string) {
	resumedUnit := resumedUnitOf(recs)
	t := &Grid{Cols: []Column{
		{Title: "name", Unit: "", Align: AlignLeft},
		{Title: "mean", Unit: "µs", Align: AlignRight, Group: perHandshake},
		{Title: "error", Unit: "µs", Align: AlignRight, Group: perHandshake, Rank: 1},
		{Title: "stddev", Unit: "µs", Align: AlignRight, Group: perHandshake, Rank: 6},
		{Title: "median", Unit: "µs", Align: AlignRight, Group: perHandshake, Rank: 5},
		{Title: "min", Unit: "µs", Align: AlignRight, Group: perHandshake, Rank: 7},
		{Title: "max", Unit: "µs", Align: AlignRight, Group: perHandshake, Rank: 7},
		{Title: "p50", Unit: "µs", Align: AlignRight, Group: latency, Rank: 3},
		{Title: "p99", Unit: "µs", Align: AlignRight, Group: latency, Rank: 1},
		{Title: "conn/s", Unit: "", Align: AlignRight, Rank: 2},
		{Title: "wall", Unit: "µs/conn", Align: AlignRight, Rank: 4},
		{Title: "resumed", Unit: resumedUnit, Align: AlignRight, Rank: 2},
		{Title: "client CPU", Unit: "µs/hs", Align: AlignRight, Rank: 4},
		{Title: "server CPU", Unit: "µs/hs", Align: AlignRight, Rank: 5},
		{Title: "alloc", Unit: "B/hs", Align: AlignRight, Rank: 7},
		{Title: "group", Unit: "", Align: AlignLeft, Rank: 8},
		{Title: "errors", Unit: "", Align: AlignRight, Rank: 6},
	}}
	for _, r := range recs {
		h := Headline(r)
		t.Rows = append(t.Rows, []string{
			CaseLabel(r),
			Num(h.Mean),
			errorCell(r, achieved),
			Num(h.stddev),
			Num(h.median),
			Num(h.min),
			Num(h.max),
			Num(r.P50US),
			Num(r.P99US),
			Num(r.HandshakesPerSec),
			Num(r.MeanUS),
			resumedCell(r),
			numPtr(r.ClientCPUUS),
			numPtr(r.ServerCPUUS),
			Integer(r.AllocBytes),
			OrNull(r.Group),
			errorsCell(r),
		})
		if NotRun(r) {
			blankFigures(t.Rows[len(t.Rows)-1])
		}
	}
	addProxyColumns(t, recs)
	addQUICColumns(t, recs)
	flags := make([][]string, len(recs))
	mixed := slices.ContainsFunc(recs, HasHandshakeFigure)
	var wallOnly []string
	for i, r := range recs {
		flags[i] = rowFlags(r, achieved)
		if lacksHandshakeFigure(r) {
			// Beside cases that have the handshake figure, a row
			// without it is marked; alone, the legend says it once.
			if mixed {
				flags[i] = append(flags[i], "wall")
			} else {
				wallOnly = append(wallOnly, CaseLabel(r))
			}
		}
	}
	legend := addFlags(t, flags)
	if len(wallOnly) > 0 {
		legend = append(legend, wallOnlyNote)
	}
	return t, legend
}

// wallOnlyNote is said under a table none of whose cases has the
// handshake figure.
const wallOnlyNote = "these results were written without the handshake figure (by an older tlsbench): mean to max are each iteration's wall time / its handshakes, the exchange after the handshake included"

// resumedUnit says whose counts the resumed column shows: the client's
// and, when known, its peer's on the same leg (resumedPeer): the
// server's, or through a proxy the proxy's.
func resumedUnitOf(recs []*results.Record) string {
	var server, proxy bool
	for _, r := range recs {
		if peer, _ := resumedPeer(r); peer != nil {
			if r.Proxy != "" {
				proxy = true
			} else {
				server = true
			}
		}
	}
	switch {
	case server && proxy:
		return "client/server or proxy"
	case proxy:
		return "client/proxy"
	case server:
		return "client/server"
	}
	return "client"
}

// addProxyColumns adds the proxy's CPU per handshake, and the
// certificates it minted and found in its cache, after the server's CPU,
// when some record went through a proxy: tables of runs without one stay
// as they were.
func addProxyColumns(t *Grid, recs []*results.Record) {
	at := slices.IndexFunc(t.Cols, func(c Column) bool { return c.Title == "server CPU" }) + 1
	if !slices.ContainsFunc(recs, func(r *results.Record) bool { return r.Proxy != "" }) || at == 0 {
		return
	}
	mints := slices.ContainsFunc(recs, func(r *results.Record) bool { return r.ProxyMints != nil || r.ProxyMintHits != nil })
	cols := []Column{{Title: "proxy CPU", Unit: "µs/hs", Align: AlignRight, Rank: 5}}
	if mints {
		cols = append(cols, Column{Title: "mints/hits", Unit: "", Align: AlignRight, Rank: 7})
	}
	t.Cols = slices.Insert(t.Cols, at, cols...)
	for i, r := range recs {
		cells := []string{numPtr(r.ProxyCPUUS)}
		if mints {
			cells = append(cells, mintsCell(r))
		}
		if NotRun(r) {
			for j := range cells {
				cells[j] = Null
			}
		}
		t.Rows[i] = slices.Insert(t.Rows[i], at, cells...)
	}
}

// mintsCell is the certificates the proxy minted over the case and those
// it found in its cache ("128/0"); unknown when the proxy did not say.
func mintsCell(r *results.Record) string {
	if r.ProxyMints == nil && r.ProxyMintHits == nil {
		return Null
	}
	count := func(n *int64) string {
		if n == nil {
			return Null
		}
		return strconv.FormatInt(*n, 10)
	}
	return count(r.ProxyMints) + "/" + count(r.ProxyMintHits)
}

// resumedCell is the client's resumption rate and, when the server's own
// count is known, the server's ("100%/100%"). A "!" marks client and
// server disagreeing; the footnotes say by how much.
func resumedCell(r *results.Record) string {
	s := Percent(r.ResumptionRate)
	peer, _ := resumedPeer(r)
	if peer == nil {
		return s
	}
	switch {
	case r.Handshakes > 0:
		s += "/" + Percent(float64(*peer)/float64(r.Handshakes))
	case *peer == 0:
		// No handshake, none resumed: a known zero, like the client's
		// rate, never shown as unknown (only null is).
		s += "/" + Percent(0)
	default:
		// Resumed handshakes the client never completed: the count,
		// marked below; the footnotes say more.
		s += "/" + strconv.FormatInt(*peer, 10)
	}
	if *peer != r.Resumed {
		s += "!"
	}
	return s
}

// errorsCell is the error count, marked "!" when there are errors; the
// footnotes list them by kind.
func errorsCell(r *results.Record) string {
	if r.Errors == 0 {
		return "0"
	}
	return strconv.FormatInt(r.Errors, 10) + "!"
}

func throughputTable(recs []*results.Record) (*Grid, []string) {
	t := &Grid{Cols: []Column{
		{Title: "name", Unit: "", Align: AlignLeft},
		{Title: "buffer", Unit: "", Align: AlignRight, Rank: 5},
		{Title: "cipher", Unit: "", Align: AlignLeft, Rank: 6},
		{Title: "direction", Unit: "", Align: AlignLeft, Rank: 3},
		{Title: "kTLS", Unit: "tx/rx", Align: AlignLeft, Rank: 4},
		{Title: "MB/s", Unit: "", Align: AlignRight},
		{Title: "error", Unit: "MB/s", Align: AlignRight, Rank: 1},
		{Title: "Gbit/s", Unit: "", Align: AlignRight, Rank: 5},
		{Title: "client CPU", Unit: "%", Align: AlignRight, Rank: 2},
		{Title: "server CPU", Unit: "%", Align: AlignRight, Rank: 2},
		{Title: "CPU-s/GB", Unit: "client+server", Align: AlignRight, Rank: 3},
		{Title: "errors", Unit: "", Align: AlignRight, Rank: 4},
	}}
	// Through a proxy, its CPU is a third figure: a column only then,
	// so that tables of runs without one stay as they were.
	proxied := slices.ContainsFunc(recs, func(r *results.Record) bool { return r.Proxy != "" })
	if proxied {
		t.Cols = slices.Insert(t.Cols, len(t.Cols)-1, Column{Title: "proxy CPU-s/GB", Unit: "", Align: AlignRight, Rank: 4})
	}
	for _, r := range recs {
		ktls := Null
		if r.KTLSTX != nil || r.KTLSRX != nil {
			ktls = OnOff(r.KTLSTX) + "/" + OnOff(r.KTLSRX)
		}
		gbit := Null
		if r.MBps != nil {
			gbit = Num(*r.MBps * 8 / 1000)
		}
		t.Rows = append(t.Rows, []string{
			CaseLabel(r),
			BufferSize(r.BufferBytes),
			OrNull(r.Cipher),
			OrNull(r.Direction),
			ktls,
			numPtr(r.MBps),
			extraNum(r, "mbps_error"),
			gbit,
			numPtr(r.ClientCPUPct),
			numPtr(r.ServerCPUPct),
			cpuSecondsPerGB(r),
			errorsCell(r),
		})
		if proxied {
			row := t.Rows[len(t.Rows)-1]
			t.Rows[len(t.Rows)-1] = slices.Insert(row, len(row)-1, extraNum(r, "proxy_cpu_s_per_gb"))
		}
		if NotRun(r) {
			row := t.Rows[len(t.Rows)-1]
			name, buf, cipher, dir := row[0], row[1], row[2], row[3]
			blankFigures(row)
			row[0], row[1], row[2], row[3] = name, buf, cipher, dir
		}
	}
	flags := make([][]string, len(recs))
	for i, r := range recs {
		flags[i] = rowFlags(r, nil)
	}
	return t, addFlags(t, flags)
}

// extraNum is a figure of the record's extra map, or unknown.
func extraNum(r *results.Record, key string) string {
	if v, ok := r.Extra[key]; ok {
		return Num(v)
	}
	return Null
}

// cpuSecondsPerGB is the CPU time both ends spent per gigabyte (10^9 bytes)
// moved, derivable when the rate and both CPU shares (percent of one CPU)
// are known: (client% + server%)/100 CPU-seconds per second, divided by
// MB/s / 1000 gigabytes per second.
func cpuSecondsPerGB(r *results.Record) string {
	if r.MBps == nil || *r.MBps <= 0 || r.ClientCPUPct == nil || r.ServerCPUPct == nil {
		return Null
	}
	return Num((*r.ClientCPUPct + *r.ServerCPUPct) / 100 / (*r.MBps / 1000))
}

func errorItems(recs []results.Record) []string {
	var items []string
	for i := range recs {
		r := &recs[i]
		if r.Errors == 0 && len(r.ErrorsByKind) == 0 {
			continue
		}
		s := fmt.Sprintf("%s: %d %s", CaseLabel(r), r.Errors, Plural(r.Errors, "error", "errors"))
		if len(r.ErrorsByKind) == 0 {
			s += " (kinds not recorded)"
		} else {
			kinds := slices.Collect(maps.Keys(r.ErrorsByKind))
			// Most frequent first, then by name.
			sort.Slice(kinds, func(i, j int) bool {
				ci, cj := r.ErrorsByKind[kinds[i]], r.ErrorsByKind[kinds[j]]
				if ci != cj {
					return ci > cj
				}
				return kinds[i] < kinds[j]
			})
			parts := make([]string, len(kinds))
			for i, k := range kinds {
				parts[i] = fmt.Sprintf("%s %d", k, r.ErrorsByKind[k])
			}
			s += ": " + strings.Join(parts, ", ")
		}
		items = append(items, s)
	}
	return items
}

func Plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// resumedPeer is the count of resumed handshakes that the client's own
// must match: the server's, or through a proxy the proxy's on the same
// leg (the server's then counts the proxy's own connections to it), with
// the name of whoever counted it. nil when not known.
func resumedPeer(r *results.Record) (*int64, string) {
	if r.Proxy != "" {
		return r.ProxyResumed, "the proxy"
	}
	return r.ServerResumed, "the server"
}

func disagreementItems(recs []*results.Record) []string {
	var items []string
	for _, r := range recs {
		peer, who := resumedPeer(r)
		if peer == nil || *peer == r.Resumed {
			continue
		}
		items = append(items, fmt.Sprintf("%s: of %d handshakes the client saw %d resumed, %s %d",
			CaseLabel(r), r.Handshakes, r.Resumed, who, *peer))
	}
	return items
}

func processCPUItems(recs []*results.Record) []string {
	var items []string
	for _, r := range recs {
		if r.ProcessCPUUS != nil {
			items = append(items, fmt.Sprintf("%s: %s µs/hs", CaseLabel(r), Num(*r.ProcessCPUUS)))
		}
	}
	return items
}

// pairKey is what a full and a resumed handshake case must share to be
// compared: everything that identifies a case except resume itself and the
// negotiated group (a resumed TLS 1.2 handshake negotiates none). A record
// with params is keyed by all of them but resume, so that a new parameter
// can never pair cases across its values; one without (written before
// params) by its typed fields.
type pairKey struct {
	params           string
	version          string
	mutual           bool
	concurrency      int
	transport        string
	keyType          string
	target           string
	clientIdentities int
	keyCache         string
	// side keeps the sides of an interleaved run apart: a full case of
	// one side and a resumed case of another measured different servers.
	side string
}

// pairKeyOf is r's pairKey.
func pairKeyOf(r *results.Record) pairKey {
	if len(r.Params) > 0 {
		return pairKey{params: paramsExcept(r.Params, "resume"), target: r.Target, clientIdentities: r.ClientIdentities, side: r.Side}
	}
	return pairKey{version: r.TLSVersion, mutual: r.Mutual, concurrency: r.Concurrency, transport: r.Transport, keyType: r.KeyType,
		target: r.Target, clientIdentities: r.ClientIdentities, keyCache: OnOff(r.KeyCache), side: r.Side}
}

// paramsExcept writes params without the one named, sorted: k=v;k=v.
func paramsExcept(params map[string]string, except string) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		if k != except {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s;", k, params[k])
	}
	return b.String()
}
