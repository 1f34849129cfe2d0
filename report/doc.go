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
//     a table of handshake cases (under "per handshake", an inverse
//     throughput: mean, error, stddev, median, min, max in microseconds
//     per handshake; under "latency": p50, p99; handshakes/s; client and,
//     when known, server resumption rate; client and server CPU and
//     allocation per handshake; negotiated group; errors), a table of
//     throughput cases, then footnotes: errors by kind, client/server
//     resumption disagreements, single-process CPU of in-memory cases,
//     notes (one line per fact, naming the cases it holds for and the
//     range of the numbers in which they differ), and
//     mean(full)/mean(resumed) for every pair of a full and a resumed case
//     that differ only in resumption. Under the handshake table a line
//     says that mean … max are per iteration and p50, p99 per handshake.
//     Laid out to a width ([Layout]; a terminal's), a table shows the
//     columns that matter most (each column's rank says), its names
//     without the beginning they all share, and a line naming what it
//     left out; the tables of detail (phases, full vs resumed) that do not
//     fit are left out whole, named at the end, and text is wrapped. Rows
//     are flagged, with a legend, when the case failed a gate (FAILED), had
//     failed connections (errors) or missed its target error (without one:
//     an error above 10% of its mean) (noisy); a table without flags has no
//     flags column. The report ends with how many cases reached their target.
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
//   - html: one self-contained page with charts, written by package
//     report/html, which draws on the comparison (package report/compare)
//     and so cannot be written from here; [Format] names it, so that
//     every format is parsed in one place.
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
// are written as records arrive, table and markdown once, on Close,
// because their column widths and footnotes depend on every record.
//
// report owns the tables of one results file and the formatting they
// share ([Document], [Grid], the number formats), which report/compare
// and report/html build on. It may import results and stats; never the
// packages that measure (runner, loadgen, server), nor internal/cli, nor
// the packages built on it: reports derive from the results file alone.
package report
