package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Writer appends records to a JSON lines stream. Each record is written
// and flushed as soon as it is added, so that a run interrupted later
// (Ctrl-C, a failing case) keeps every case already measured.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	file *os.File // non-nil when the Writer owns a file
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Create creates (or truncates) the results file at path.
func Create(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("results file %s: %w", path, err)
	}
	return &Writer{w: f, file: f}, nil
}

// Write encodes rec as one line and, for a file, syncs it to the OS.
func (w *Writer) Write(rec *Record) error {
	line, err := Marshal(rec)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.w.Write(line); err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	return nil
}

// Close closes the underlying file, if the Writer opened one.
func (w *Writer) Close() error {
	if w.file == nil {
		return nil
	}
	return w.file.Close()
}

// Marshal encodes one record as a JSON line (with the trailing newline).
func Marshal(rec *Record) ([]byte, error) {
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("encoding result %q: %w", rec.Name, err)
	}
	return append(b, '\n'), nil
}

// Decode's errors wrap these when a line is a record that cannot be
// trusted, so that a caller can say what to do about it.
var (
	// ErrIncomplete: a required field is missing, or null where a value
	// is always known.
	ErrIncomplete = errors.New("incomplete record")
	// ErrContradictory: the record contradicts itself (Record.Validate).
	ErrContradictory = errors.New("contradictory record")
)

// Decode reads every record of a JSON lines stream. Blank lines are
// skipped; any other line that is not a record is an error naming the line:
// a line missing a required field (see RequiredFields), holding null where
// a value is always known, or contradicting itself (see Record.Validate).
func Decode(r io.Reader) ([]Record, error) {
	var recs []Record
	err := DecodeEach(r, func(rec *Record) error {
		recs = append(recs, *rec)
		return nil
	})
	return recs, err
}

// DecodeEach reads a JSON lines stream as Decode does, calling fn with
// each record as it is read, so that a reader of a large file holds one
// record at a time and keeps of it what it needs; rec is not used after
// fn returns. An error from fn stops the reading and is returned as it is.
func DecodeEach(r io.Reader, fn func(rec *Record) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		rec, err := DecodeLine(line)
		if err != nil {
			return fmt.Errorf("line %d%w", n, err)
		}
		if err := fn(&rec); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("line %d: not a tlsbench result: the line is longer than %d MiB, and no result is that long", n+1, maxLine>>20)
		}
		return fmt.Errorf("reading results: %w", err)
	}
	return nil
}

// lineError is a fault of one line; Decode prefixes it with the line's
// number, so its text starts with what follows the number.
type lineError struct {
	prefix string
	err    error
}

func (e *lineError) Error() string { return e.prefix + e.err.Error() }
func (e *lineError) Unwrap() error { return e.err }

// DecodeLine decodes one line of a results file (without its newline)
// as Decode decodes each, with the same checks, for a reader that takes
// a stream one record at a time. Its error's text follows the line's
// number: ": not a tlsbench result ..." or " (case): ...".
func DecodeLine(line []byte) (Record, error) {
	var rec Record
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&rec); err != nil {
		return rec, &lineError{": ", errors.New(jsonProblem(err))}
	}
	if dec.More() {
		return rec, &lineError{": ", errors.New("more than one JSON value on the line")}
	}
	if rec.Name == "" || rec.Kind == "" {
		return rec, &lineError{": ", errors.New("not a tlsbench result (no name or kind)")}
	}
	if err := checkFields(line); err != nil {
		return rec, &lineError{" (" + rec.Name + "): ", fmt.Errorf("%w: %v", ErrIncomplete, err)}
	}
	if err := rec.Validate(); err != nil {
		return rec, &lineError{" (" + rec.Name + "): ", fmt.Errorf("%w: %v", ErrContradictory, err)}
	}
	return rec, nil
}

// maxLine is the longest line Decode reads. A record is a few KiB (its
// histogram and samples included); a longer line is something else.
const maxLine = 64 << 20

// jsonProblem says what is wrong with a line that does not decode as a
// record, in terms of the file: the field, what it should hold and what
// it holds.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te) && te.Field == "":
		return "not a tlsbench result: the line holds " + jsonValue(te.Value) + ", not an object"
	case errors.As(err, &te):
		want := jsonKind(te.Type)
		if strings.HasPrefix(te.Value, "number ") && (want == "a number" || want == "a whole number") {
			v := strings.TrimPrefix(te.Value, "number ")
			if f, err := strconv.ParseFloat(v, 64); want == "a whole number" && (err != nil || f != math.Trunc(f)) {
				return fmt.Sprintf("not a tlsbench result: field %q: want a whole number, got %s", te.Field, v)
			}
			return fmt.Sprintf("not a tlsbench result: field %q: %s is out of range", te.Field, v)
		}
		return fmt.Sprintf("not a tlsbench result: field %q: want %s, got %s", te.Field, want, jsonValue(te.Value))
	case errors.As(err, &se):
		return fmt.Sprintf("not a tlsbench result: not valid JSON at character %d (%s)", se.Offset, se.Error())
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return "not a tlsbench result: the line ends inside its JSON value (was it cut?)"
	}
	return "not a tlsbench result: " + err.Error()
}

// jsonValue names a kind of JSON value as encoding/json reports it
// ("string", "number 1.5", "array"...).
func jsonValue(v string) string {
	switch {
	case v == "array":
		return "a list"
	case v == "object":
		return "an object"
	case v == "bool":
		return "true or false"
	case v == "string":
		return "a string"
	case strings.HasPrefix(v, "number"):
		return "a number"
	}
	return v
}

// jsonKind names what a Go type holds in JSON terms.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another value"
}

// ReadFile decodes the results file at path.
func ReadFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := Decode(f)
	if err != nil {
		return recs, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}
