// Package results defines the result record that every tlsbench run writes
// and every report and comparison reads: one JSON object per benchmark case,
// one object per line (JSON lines).
//
// The JSON field names are a contract, documented in docs/results.md, and
// are pinned by tests (a field missing from docs/results.md fails them):
// renaming one breaks every results file already
// written. New fields may be added; existing ones keep their name and
// meaning. Values that are unknown are encoded as null, never as a guess.
//
// A record keeps the raw per-iteration samples and the encoded latency
// histogram, so that any report or comparison can be recomputed later from
// the file alone.
//
// results owns the record, its encoding and the environment it records.
// It may import stats; never the packages that measure (loadgen, runner,
// server) or render (report), nor internal/cli.
package results
