package reportcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/report/html"
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
  table     aligned text for a terminal (the default), the columns that fit
            its width; --wide, a file or a pipe get every column
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

// reportFlags are the flags of tlsbench report.
type reportFlags struct {
	format, out string
	wide        bool
}

// DefineReportFlags defines report's flags on fs.
func DefineReportFlags(fs *command.FlagSet) *reportFlags {
	rf := &reportFlags{}
	fs.StringVar(&rf.format, "format", "table", "`FORMAT` of the report: table, markdown, csv, json, benchfmt, html")
	fs.StringVar(&rf.out, "o", "", "write the report to `FILE` instead of standard output")
	fs.StringVar(&rf.out, "out", "", "the same as -o `FILE`")
	fs.DefBool(&rf.wide, "wide", false)
	return rf
}

// Report is tlsbench report: results files in a format.
func Report(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := command.NewUsageFlagSet("report", reportUsage, stdout)
	rf := DefineReportFlags(fs)
	format, out := &rf.format, &rf.out
	files, err := fs.ParseWithArgs(args)
	if err != nil {
		return err
	}
	f, err := report.ParseFormat(*format)
	if err != nil {
		return command.Usagef("--format: %v", err)
	}
	if len(files) == 0 {
		return command.Usagef("no results file given; usage: tlsbench report [flags] FILE... (see 'tlsbench report --help')")
	}
	if f == report.HTML && len(files) > 2 {
		return command.Usagef("--format html: %d files given; give one, or two (baseline and candidate) to overlay them; to combine runs first: tlsbench report --format json a.jsonl b.jsonl c.jsonl > all.jsonl", len(files))
	}
	if err := refuseOverwrite(*out, files); err != nil {
		return err
	}
	layout := report.Layout{}
	if *out == "" || *out == "-" {
		layout = command.TableLayout(stdout, rf.wide)
	}
	runs, stream, buf, err := readForReport(ctx, f, layout, files, stderr)
	if err != nil {
		return err
	}
	if f == report.HTML && len(runs) == 2 {
		for _, r := range runs {
			if report.Interleaved(r.Records) {
				return command.Usagef("--format html: %s holds an interleaved run, whose sides are compared within it: give it alone", r.Name)
			}
		}
	}
	// Render into memory first, so that a failure leaves no half-written
	// -o file behind and an existing one is not truncated for nothing.
	// The rendering writes only buf and note, which are read only once it
	// is done: interrupted, it is left to finish by itself while the
	// caller writes to stderr.
	var note string
	err = interruptible(ctx, func() error {
		if f == report.HTML {
			return html.RenderHTML(buf, runs...)
		}
		if err := stream.Close(); err != nil {
			return err
		}
		note = stream.LeftOut()
		return nil
	})
	if err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(stderr, "tlsbench: "+command.Printable(note))
	}
	return writeOutput(*out, "-o", buf.Bytes(), stdout)
}

// readForReport reads the results files one record at a time: the
// formats that stream render each as it comes, table and markdown keep
// a summary of it in their stream, html in its run (report.Trim). It
// says on stderr when the report would show a record more than once.
func readForReport(ctx context.Context, f report.Format, layout report.Layout, files []string, stderr io.Writer) ([]html.Run, RecordStream, *bytes.Buffer, error) {
	var buf bytes.Buffer
	stream, err := NewStream(&buf, f, layout)
	if err != nil {
		return nil, nil, nil, err
	}
	overlay := f == report.HTML && len(files) == 2
	// Two files drawn over each other as baseline and candidate are each
	// one run; otherwise all records are one.
	finders := make([]report.DuplicateFinder, len(files))
	runs := make([]html.Run, len(files))
	for i, name := range files {
		finder := &finders[0]
		if overlay {
			finder = &finders[i]
		}
		runs[i].Name = name
		n := 0
		err := eachResult(ctx, name, os.Stdin, func(rec *results.Record) error {
			n++
			finder.Add(rec)
			if !f.Streams() {
				report.Trim(rec, f, overlay)
			}
			if f == report.HTML {
				runs[i].Records = append(runs[i].Records, *rec)
				return nil
			}
			return stream.Add(rec)
		})
		if err != nil {
			return nil, nil, nil, err
		}
		if n == 0 {
			return nil, nil, nil, noResults(name)
		}
	}
	var ds []report.Duplicate
	for i := range finders {
		ds = append(ds, finders[i].Duplicates()...)
	}
	if len(ds) > 0 {
		fmt.Fprintf(stderr, "tlsbench: WARNING: the report shows the same record more than once: %s; it is one measurement, given again\n", command.Printable(report.DuplicatesText(ds)))
	}
	return runs, stream, &buf, nil
}

// interruptible runs fn, a report's rendering, and returns its error, or
// returns at once when ctx is done (Ctrl-C, SIGTERM): the page of a large
// results file takes seconds to lay out, and nothing of it is written
// until fn is done, so there is nothing to wait for. fn, then left
// running, must write nothing the caller uses after an interrupt (stderr
// above all, where the caller says it was interrupted).
func interruptible(ctx context.Context, fn func() error) error {
	if ctx.Err() != nil {
		return errReportInterrupted
	}
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return errReportInterrupted
	}
}

// errReportInterrupted is a report or comparison stopped by Ctrl-C or
// SIGTERM (exit 130).
var errReportInterrupted = &command.InterruptedError{Detail: "no report written"}

// readResults reads a results file ("-": stdin). Anything wrong with it is
// a usage error naming the file and, for bad content, the line.
func readResults(name string, stdin io.Reader) ([]results.Record, error) {
	var recs []results.Record
	err := eachResult(context.Background(), name, stdin, func(rec *results.Record) error {
		recs = append(recs, *rec)
		return nil
	})
	return recs, err
}

// eachResult calls fn with each record of a results file ("-": stdin) as
// it is read, until ctx is done. Anything wrong with the file is a usage
// error naming the file and, for bad content, the line; fn's errors are
// returned as they are.
func eachResult(ctx context.Context, name string, stdin io.Reader, fn func(rec *results.Record) error) error {
	in, where := stdin, "standard input"
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return resultsFileError(name, err)
		}
		defer f.Close()
		in, where = f, name
	}
	var fnErr error
	err := results.DecodeEach(in, func(rec *results.Record) error {
		if ctx.Err() != nil {
			fnErr = errReportInterrupted
		} else {
			fnErr = fn(rec)
		}
		return fnErr
	})
	switch {
	case err == nil:
		return nil
	case fnErr != nil:
		return fnErr
	}
	return resultsFileError(name, fmt.Errorf("%s: %w", where, err))
}

// resultsFileError is the usage error for a results file that cannot be
// opened or read as one: what to do about it.
func resultsFileError(name string, err error) error {
	var pe *os.PathError
	switch {
	case errors.As(err, &pe):
		return command.Usagef("results file %s: %v", name, pe.Err)
	case errors.Is(err, results.ErrIncomplete):
		return command.Usagef("results file %v; tlsbench writes every such field: was the line cut or edited? Measure the case again", err)
	case errors.Is(err, results.ErrContradictory):
		return command.Usagef("results file %v; tlsbench does not write such a record: was the line edited? Remove it or measure the case again", err)
	}
	return command.Usagef("results file %v; is it a tlsbench results file (tlsbench run --out)?", err)
}

// noResults is the error for a results file without any record: there is
// nothing to report or compare, which is never what was meant.
func noResults(name string) error {
	if name == "-" {
		name = "standard input"
	}
	return command.Usagef("no results in %s; give a file written by tlsbench run --out", name)
}

// refuseOverwrite refuses an output file that is one of the inputs (the
// same file by another path, a symbolic or hard link included): writing
// the report would destroy the results it is made from.
func refuseOverwrite(out string, inputs []string) error {
	if out == "" || out == "-" {
		return nil
	}
	for _, in := range inputs {
		if in != "-" && (command.SameFile(out, in) || samePath(out, in)) {
			return command.Usagef("-o %s is the results file %s: writing the report would overwrite it; write it elsewhere", out, in)
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
		return command.Usagef("%s %s: %v", flagName, path, err)
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

// RecordStream writes records in a report's format as they come: one of
// package report's formats, or the page of package html.
type RecordStream interface {
	Add(rec *results.Record) error
	Close() error
	LeftOut() string
}

// NewStream is the stream of format f; a table is laid out by l.
func NewStream(w io.Writer, f report.Format, l report.Layout) (RecordStream, error) {
	if f == report.HTML {
		return html.NewStream(w), nil
	}
	s, err := report.NewStream(w, f)
	if err != nil {
		return nil, err
	}
	s.SetLayout(l)
	return s, nil
}
