package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

const reportUsage = `Usage: tlsbench report [flags] FILE...

Renders results files (JSON lines, as written by 'tlsbench run --out') as a
report. With several files their records are concatenated, except for
--format html, where two files are a baseline and a candidate drawn over
each other (and compared), and one file of an interleaved run (run
--versus, --versus-server, --versus-self) draws its sides over each other
with their paired comparison. "-" reads standard input.

Formats:
  table     aligned text for a terminal (the default)
  markdown  GitHub-flavoured Markdown tables
  csv       one row per case, the results file's field names as header;
            an empty cell is a value that is unknown (null); cases not run
            are left out (named on stderr)
  json      JSON lines, the results file's own encoding (filters and merges losslessly)
  benchfmt  Go's benchmark format, for benchstat; cases that failed a gate
            or were not run are left out (named on stderr): benchstat
            would compare their figures as results
  html      one self-contained page with charts; works offline

Examples:
  tlsbench report results.jsonl
  tlsbench report --format html -o report.html results.jsonl
  tlsbench report --format html -o ab.html before.jsonl after.jsonl
  tlsbench report --format benchfmt old.jsonl > old.txt
  benchstat -ignore tlsbench old.txt new.txt   # -ignore: the tlsbench versions differ

Flags:
`

func reportCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", stdout, nil)
	fs.usage = func(w io.Writer) {
		io.WriteString(w, reportUsage)
		fs.printFlags(w)
	}
	format := fs.String("format", "table", "`FORMAT` of the report: table, markdown, csv, json, benchfmt, html")
	out := fs.String("o", "", "write the report to `FILE` instead of standard output")
	fs.StringVar(out, "out", "", "the same as -o `FILE`")
	files, err := fs.parseWithArgs(args)
	if err != nil {
		return err
	}
	f, err := report.ParseFormat(*format)
	if err != nil {
		return usagef("--format: %v", err)
	}
	if len(files) == 0 {
		return usagef("no results file given; usage: tlsbench report [flags] FILE... (see 'tlsbench report --help')")
	}
	if f == report.HTML && len(files) > 2 {
		return usagef("--format html: %d files given; give one, or two (baseline and candidate) to overlay them; to combine runs first: tlsbench report --format json a.jsonl b.jsonl c.jsonl > all.jsonl", len(files))
	}
	if err := refuseOverwrite(*out, files); err != nil {
		return err
	}
	runs := make([]report.Run, len(files))
	for i, name := range files {
		recs, err := readResults(name, os.Stdin)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			return noResults(name)
		}
		runs[i] = report.Run{Name: name, Records: recs}
	}

	if f == report.HTML && len(runs) == 2 {
		for _, r := range runs {
			if report.Interleaved(r.Records) {
				return usagef("--format html: %s holds an interleaved run, whose sides are compared within it: give it alone", r.Name)
			}
		}
	}
	warnDuplicates(stderr, f, runs)

	// Render into memory first, so that a failure leaves no half-written
	// -o file behind and an existing one is not truncated for nothing.
	var buf bytes.Buffer
	if f == report.HTML {
		err = report.RenderHTML(&buf, runs...)
	} else {
		var all []results.Record
		for _, r := range runs {
			all = append(all, r.Records...)
		}
		err = renderRecords(&buf, stderr, f, all)
	}
	if err != nil {
		return err
	}
	return writeOutput(*out, "-o", buf.Bytes(), stdout)
}

// renderRecords writes recs in format f to w, and says on stderr which
// records the format left out because it cannot show their verdict.
func renderRecords(w, stderr io.Writer, f report.Format, recs []results.Record) error {
	s, err := report.NewStream(w, f)
	if err != nil {
		return err
	}
	for i := range recs {
		if err := s.Add(&recs[i]); err != nil {
			return err
		}
	}
	if err := s.Close(); err != nil {
		return err
	}
	if msg := s.LeftOut(); msg != "" {
		fmt.Fprintln(stderr, "tlsbench: "+msg)
	}
	return nil
}

// warnDuplicates says, in one line on stderr, when the report shows the
// same record more than once (a file given twice, or concatenated with
// itself): its rows repeat, and nothing else says they are copies. Two
// files drawn over each other as baseline and candidate are each one run.
func warnDuplicates(stderr io.Writer, f report.Format, runs []report.Run) {
	sets := [][]results.Record{nil}
	for _, r := range runs {
		if f == report.HTML && len(runs) == 2 {
			sets = append(sets, r.Records)
		} else {
			sets[0] = append(sets[0], r.Records...)
		}
	}
	var ds []report.Duplicate
	for _, set := range sets {
		ds = append(ds, report.Duplicates(set)...)
	}
	if len(ds) > 0 {
		fmt.Fprintf(stderr, "tlsbench: WARNING: the report shows the same record more than once: %s; it is one measurement, given again\n", report.DuplicatesText(ds))
	}
}

// readResults reads a results file ("-": stdin). Anything wrong with it is
// a usage error naming the file and, for bad content, the line.
func readResults(name string, stdin io.Reader) ([]results.Record, error) {
	var (
		recs []results.Record
		err  error
	)
	if name == "-" {
		recs, err = results.Decode(stdin)
		if err != nil {
			err = fmt.Errorf("standard input: %w", err)
		}
	} else {
		recs, err = results.ReadFile(name)
	}
	if err != nil {
		var pe *os.PathError
		switch {
		case errors.As(err, &pe):
			return nil, usagef("results file %s: %v", name, pe.Err)
		case errors.Is(err, results.ErrIncomplete):
			return nil, usagef("results file %v; tlsbench writes every such field: was the line cut or edited? Measure the case again", err)
		case errors.Is(err, results.ErrContradictory):
			return nil, usagef("results file %v; tlsbench does not write such a record: was the line edited? Remove it or measure the case again", err)
		}
		return nil, usagef("results file %v; is it a tlsbench results file (tlsbench run --out)?", err)
	}
	return recs, nil
}

// noResults is the error for a results file without any record: there is
// nothing to report or compare, which is never what was meant.
func noResults(name string) error {
	if name == "-" {
		name = "standard input"
	}
	return usagef("no results in %s; give a file written by tlsbench run --out", name)
}

// refuseOverwrite refuses an output file that is one of the inputs (the
// same file by another path, a symbolic or hard link included): writing
// the report would destroy the results it is made from.
func refuseOverwrite(out string, inputs []string) error {
	if out == "" || out == "-" {
		return nil
	}
	for _, in := range inputs {
		if in != "-" && (sameFile(out, in) || samePath(out, in)) {
			return usagef("-o %s is the results file %s: writing the report would overwrite it; write it elsewhere", out, in)
		}
	}
	return nil
}

// writeOutput writes data to the file named by flag, or to stdout when the
// flag was not given.
func writeOutput(path, flagName string, data []byte, stdout io.Writer) error {
	if path == "" || path == "-" {
		_, err := stdout.Write(data)
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return usagef("%s %s: %v", flagName, path, err)
	}
	return nil
}

// samePath reports whether two paths are one once cleaned and made
// absolute ("sub/../r.jsonl" is "r.jsonl" even when sub does not exist,
// which the kernel would not resolve).
func samePath(a, b string) bool {
	aa, errA := filepath.Abs(a)
	ab, errB := filepath.Abs(b)
	return errA == nil && errB == nil && aa == ab
}
