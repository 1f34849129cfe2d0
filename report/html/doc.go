// Package html writes the html format of a report: one self-contained
// page (inline SVG charts, no script, nothing fetched): the environment,
// the tables of the table format, and charts of per-handshake time,
// resumption rate and handshakes/s against concurrency, client and
// server CPU per handshake, latency percentile curves from the HDR
// histograms and throughput against buffer size; open-loop cases against
// the offered rate instead of concurrency, and per search for a
// sustainable rate its knee: each step's p50 to p99.9 against the rate
// offered, the goal's latency as a line and the answer's bracket marked.
// [RenderHTML] overlays a baseline and a candidate, with their comparison
// (package report/compare); the page of an interleaved run adds a forest
// plot of its paired ratios: per case side b / side a with its 99.9%
// interval, the line at 1 and the floor of changes within noise
// (forest.go). See html.go.
//
// The charts come first, at the full width of the page, each with what
// it shows folded under it; the tables follow, each scrolling in its own
// box when wider than the window, so that the page never does. A case
// that failed a gate or was not run is drawn hatched grey and labelled,
// never like a result (states.go). Times and sizes are shown in the unit
// that suits them, µs to s and B to GB, on axes and in table columns
// (units.go).
//
// A [Stream] collects a run's records and writes the page on Close,
// because its tables and charts depend on every record.
//
// The page is written by hand (html.go, svg.go), each piece of text
// escaped where it is written, rather than with html/template: that
// package is built on text/template, which the binary does not link, and
// it escapes more than the page needs ("+" as "&#43;"), so the page would
// not stay byte for byte what it was.
//
// html may import report, report/compare, results and stats; nothing
// imports it but the CLI.
package html
