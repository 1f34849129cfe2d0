// Package report renders benchmark results ([results.Record], as read from a
// results file) for people and for other tools.
//
// Reports are derived from results only: a renderer sees the records and
// nothing else (no live counters, no clock, no machine state), so a report
// made from a results file years later is the report the run printed, and
// `tlsbench run`, `tlsbench report` and a results file piped through other
// tools all agree. What a report needs that is not in a record (for example
// the ratio of a full to a resumed handshake) is computed from records.
//
// The formats, and what each is for:
//
//   - table: aligned text for a terminal. A header with the environment of
//     the first record (and a note when the records' environments differ),
//     a table of handshake cases (mean, error, stddev, median, min, max in
//     microseconds per handshake; p99 latency; handshakes/s; client and,
//     when known, server resumption rate; client and server CPU and
//     allocation per handshake; negotiated group; errors), a table of
//     throughput cases, then footnotes: errors by kind, client/server
//     resumption disagreements, single-process CPU of in-memory cases,
//     notes, and mean(full)/mean(resumed) for every pair of a full and a
//     resumed case that differ only in resumption. Under the handshake
//     table a line says that mean … max are per iteration and p99 per
//     handshake. Rows are flagged, with a legend, when the case failed a
//     gate (FAILED), had failed connections (errors) or an error above 10%
//     of its mean (noisy); a table without flags has no flags column.
//     When some case ran over QUIC, two columns follow the resumption
//     rate: the share of the early data offered that the server accepted
//     (client/server, "!" where they differ; "none offered" when the
//     sessions permitted none, so the case measured 1-RTT resumptions;
//     "off" for a QUIC case that sent none) and the median time from
//     the dial to the first byte of the answer.
//     Unknown (null) values are "—", never 0. Numbers are marked "!" where
//     a footnote says more. Open-loop cases (a start rate, no concurrency)
//     have a table of their own: rate asked for and made, handshakes/s,
//     p50 and p99 from each connection's intended start beside the service
//     time from its actual start, the generator's start lateness, late and
//     dropped connections. Each search for a sustainable rate gets its
//     goal, its answer with the bracket it lies in ("between 3250/s (met)
//     and 3375/s (failed)") and what ended it early, then a table of its
//     steps in rate order with each step's percentiles (the goal's own,
//     from the step's histogram), error share, late, dropped and whether
//     it met the goal.
//   - markdown: the same content as GitHub-flavoured Markdown tables, for
//     issues, pull requests and BENCHMARKS.md.
//   - csv: one row per record with the scalar fields, the header row being
//     the records' JSON field names (env fields as env.NAME); an empty cell
//     is a null or omitted value (the csv convention for a missing value,
//     where "—" would break a numeric column). For spreadsheets and data
//     frames.
//   - json: JSON lines, each record exactly as json.Marshal encodes it,
//     which is the results file's own encoding: results files round-trip
//     through it without loss, so it can filter, merge and re-emit them.
//   - benchfmt: Go's benchmark format, one line per measured iteration with
//     the environment as configuration lines, so that benchstat
//     (golang.org/x/perf/cmd/benchstat) can summarize and compare tlsbench
//     results like any Go benchmark. See benchfmt.go for names and units.
//   - html: one self-contained page (inline SVG charts, no script, nothing
//     fetched): the environment, the tables of the table format, and charts
//     of per-handshake time, resumption rate and handshakes/s against
//     concurrency, client and server CPU per handshake, latency percentile
//     curves from the HDR histograms and throughput against buffer size;
//     open-loop cases against the offered rate instead of concurrency, and
//     per search for a sustainable rate its knee: each step's p50 to
//     p99.9 against the rate offered, the goal's latency as a line and
//     the answer's bracket marked.
//     [RenderHTML] overlays a baseline and a candidate. See html.go.
//
// [Compare] compares a candidate's records with a baseline's, case by case
// (tlsbench compare, run --baseline): the ratio of means with its standard
// deviation, a Mann-Whitney U test, the change in allocations, a verdict,
// and a loud flag where the two sides resumed at different rates. A pair
// whose sides differ in what sets the cost of the work (group, key type,
// kTLS actually used by each end, session store, …) is not comparable
// unless [CompareOptions.AllowMismatch]: no ratio or verdict, and left out
// of the gate.
// Two separate runs cannot tell drift of the machine from the change, and
// every sequential comparison says so. [ComparePaired] compares the sides
// of one interleaved run (records with a side) on the ratios of the
// iterations measured in the same round: the geometric mean ratio with
// its 99.9% interval and a Wilcoxon signed-rank test; side a2, when
// measured, gives the noise floor. Every comparison calls a significant
// change no larger than the floor (at least [CompareOptions.MinEffect])
// "within noise", not faster or slower.
// Searches for a sustainable rate are one answer per side, with no sample
// to test: Compare judges them by their brackets alone (higher when the
// candidate met a rate the baseline failed, lower when it failed one the
// baseline met, otherwise the brackets overlap), and leaves their steps
// out of the case-by-case comparison.
// [RenderComparison] lays the result out as table, markdown, json or csv,
// and [Comparison.CheckRegressions] is the CI gate.
//
// The report of an interleaved run names each record's side ("name [b]";
// in benchfmt the name key side=b, for benchstat -col /side) and never
// pairs, merges or charts two sides as one. Records measured towards a
// target error show in their error cell the precision reached (of the
// ratio b/a for side b), marked when above the target, and a footnote
// lists the cases that stopped before reaching it.
//
// [Render] writes a whole report. A [Stream] takes records one at a time,
// for a run that reports each case as it finishes: json, csv and benchfmt
// are written as records arrive, table, markdown and html once, on Close,
// because their column widths, footnotes and charts depend on every record.
//
// report owns rendering and comparing records. It may import results and
// stats; never the packages that measure (runner, loadgen, server), nor
// internal/cli: reports derive from the results file alone.
package report
