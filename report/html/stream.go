package html

import (
	"errors"
	"io"

	"github.com/tlsbench/tlsbench/results"
)

// A Stream collects the records of one page, for a run that reports each
// case as it finishes, and writes the page on Close: its tables, charts
// and comparison depend on every record. It leaves no record out. A
// Stream is not safe for concurrent use.
type Stream struct {
	w      io.Writer
	recs   []results.Record
	closed bool
}

// NewStream returns a Stream that writes the page of its records to w.
func NewStream(w io.Writer) *Stream { return &Stream{w: w} }

// Add keeps a copy of rec for Close.
func (s *Stream) Add(rec *results.Record) error {
	if s.closed {
		return errors.New("report: Add after Close")
	}
	s.recs = append(s.recs, *rec)
	return nil
}

// Close writes the page, as RenderHTML writes one run. It does not close
// the underlying writer.
func (s *Stream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	return RenderHTML(s.w, Run{Records: s.recs})
}

// LeftOut is what the page leaves out: nothing, every case is shown with
// its verdict.
func (s *Stream) LeftOut() string { return "" }
