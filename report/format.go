package report

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tlsbench/tlsbench/results"
)

// Format names an output format of a report.
type Format string

// The report formats. Their names are what --format accepts.
const (
	Table    Format = "table"    // aligned text for a terminal
	Markdown Format = "markdown" // GitHub-flavoured Markdown tables
	CSV      Format = "csv"      // one row per record, scalar fields only
	JSON     Format = "json"     // JSON lines, identical to the results file
	Benchfmt Format = "benchfmt" // Go benchmark format, readable by benchstat
	HTML     Format = "html"     // one self-contained page with charts
)

var formats = []Format{Table, Markdown, CSV, JSON, Benchfmt, HTML}

// Formats returns the known formats in the order they are documented.
func Formats() []Format {
	return append([]Format(nil), formats...)
}

// ParseFormat returns the Format named s. Its error lists the valid names.
func ParseFormat(s string) (Format, error) {
	for _, f := range formats {
		if s == string(f) {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown report format %q (valid: %s)", s, formatList())
}

func formatList() string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// Streams reports whether f writes each record as soon as it is added to a
// [Stream] (json, csv, benchfmt). The others (table, markdown, html) need
// every record to lay out their columns and charts and write everything on
// Close.
func (f Format) Streams() bool {
	switch f {
	case JSON, CSV, Benchfmt:
		return true
	}
	return false
}

// Render writes recs to w in format f, any but html, which package
// report/html writes (it draws on the comparison, which is built on this
// package). benchfmt and csv leave out the records whose verdict they
// cannot show (see [Stream.LeftOut]); a caller that must say so uses a
// [Stream].
func Render(w io.Writer, f Format, recs []results.Record) error {
	s, err := NewStream(w, f)
	if err != nil {
		return err
	}
	for i := range recs {
		if err := s.Add(&recs[i]); err != nil {
			return err
		}
	}
	return s.Close()
}

// A Stream renders records one at a time, for a run that reports each case
// as it finishes. Formats that stream (see [Format.Streams]) write every
// record when it is added; the others collect the records and write the
// whole report on Close. A Stream is not safe for concurrent use.
// Package report/html has the Stream of the html format.
type Stream struct {
	w      io.Writer
	f      Format
	recs   []results.Record // table, markdown: everything is written on Close
	layout Layout           // table: how wide it may be
	enc    recordEncoder    // streaming formats
	closed bool
	// omitted are the records left out: the format cannot show
	// their verdict (see LeftOut).
	omitted []omission
}

// recordEncoder is implemented by the streaming formats.
type recordEncoder interface {
	add(rec *results.Record) error
	close() error
}

// NewStream returns a Stream that writes format f to w. It fails for an
// unknown format and for html, whose stream is package report/html's.
func NewStream(w io.Writer, f Format) (*Stream, error) {
	s := &Stream{w: w, f: f}
	switch f {
	case HTML:
		return nil, errors.New("report: the html format is written by package report/html")
	case Table, Markdown:
	case JSON:
		s.enc = &jsonEncoder{w: w}
	case CSV:
		s.enc = newCSVEncoder(w)
	case Benchfmt:
		s.enc = newBenchfmtEncoder(w)
	default:
		_, err := ParseFormat(string(f))
		return nil, err
	}
	return s, nil
}

// SetLayout sets the width a table is laid out to (by default, none:
// every column); the other formats are not laid out to a width.
func (s *Stream) SetLayout(l Layout) { s.layout = l }

// Add renders rec, or keeps a copy of it for Close.
func (s *Stream) Add(rec *results.Record) error {
	if s.closed {
		return errors.New("report: Add after Close")
	}
	if why := leavesOut(s.f, rec); why != "" {
		s.omitted = append(s.omitted, omission{CaseLabel(rec), why})
		return nil
	}
	if s.enc != nil {
		return s.enc.add(rec)
	}
	s.recs = append(s.recs, *rec)
	return nil
}

// Close writes what is left of the report: everything for table, markdown
// and html, the header of a CSV file that had no records. It does not close
// the underlying writer.
func (s *Stream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	switch s.f {
	case Table:
		return WriteTextLayout(s.w, BuildDocument(s.recs), s.layout)
	case Markdown:
		return WriteMarkdown(s.w, BuildDocument(s.recs))
	}
	return s.enc.close()
}
