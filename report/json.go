package report

import (
	"encoding/json"
	"io"

	"github.com/tlsbench/tlsbench/results"
)

// jsonEncoder writes JSON lines: each record exactly as json.Marshal
// encodes it, followed by a newline, so that a results file read and
// rendered again is unchanged.
type jsonEncoder struct {
	w io.Writer
}

func (e *jsonEncoder) add(rec *results.Record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	_, err = e.w.Write(append(b, '\n'))
	return err
}

func (e *jsonEncoder) close() error { return nil }
