package bulk_test

import (
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/bulk"
)

// TestVerifiers: each verifier accepts the exact stream in any chunking
// and names the first wrong byte (or wrong pass) otherwise.
func TestVerifiers(t *testing.T) {
	t.Parallel()
	content := make([]byte, 1000)
	rand.Read(content)
	repeat := func(b []byte, n int) []byte {
		var out []byte
		for len(out) < n {
			out = append(out, b...)
		}
		return out[:n]
	}
	streamAt := func(phase int64, n int) []byte {
		var out []byte
		for len(out) < n {
			out = append(out, bulk.PatternAt(phase+int64(len(out)), min(n-len(out), bulk.MaxBuffer))...)
		}
		return out
	}
	const phase = bulk.PatternPeriod - 5000 // the stream wraps early
	for _, tc := range []struct {
		name    string
		v       func() bulk.Verifier
		data    []byte
		flip    int   // -1: none
		wantOff int64 // of the error
	}{
		{"pattern intact", func() bulk.Verifier { return bulk.NewPatternVerifier(phase) }, streamAt(phase, 20000), -1, 0},
		{"pattern flip before the wrap", func() bulk.Verifier { return bulk.NewPatternVerifier(phase) }, streamAt(phase, 20000), 4999, 4999},
		{"pattern flip after the wrap", func() bulk.Verifier { return bulk.NewPatternVerifier(phase) }, streamAt(phase, 20000), 5000, 5000},
		{"pattern wrong phase", func() bulk.Verifier { return bulk.NewPatternVerifier(phase + 1) }, streamAt(phase, 20000), -1, 0},
		{"content intact", func() bulk.Verifier { return bulk.NewContentVerifier(content) }, repeat(content, 3000), -1, 0},
		{"content flip in pass 3", func() bulk.Verifier { return bulk.NewContentVerifier(content) }, repeat(content, 3000), 2001, 2001},
		{"pass hash intact", func() bulk.Verifier { return bulk.NewPassHashVerifier(1000, sha256.Sum256(content)) }, repeat(content, 3000), -1, 0},
		{"pass hash flip in pass 2", func() bulk.Verifier { return bulk.NewPassHashVerifier(1000, sha256.Sum256(content)) }, repeat(content, 3000), 1500, 2000},
	} {
		for _, chunk := range []int{1, 7, 4096, 1 << 20} {
			data := append([]byte(nil), tc.data...)
			if tc.flip >= 0 {
				data[tc.flip] ^= 1
			}
			v := tc.v()
			var err error
			for off := 0; off < len(data) && err == nil; off += chunk {
				err = v.Check(data[off:min(off+chunk, len(data))])
			}
			if err == nil {
				err = v.Done(int64(len(data)))
			}
			wantErr := tc.flip >= 0 || strings.Contains(tc.name, "wrong")
			var ie *bulk.IntegrityError
			switch {
			case !wantErr && err != nil:
				t.Errorf("%s, chunks of %d: %v", tc.name, chunk, err)
			case wantErr && !errors.As(err, &ie):
				t.Errorf("%s, chunks of %d: %v, want an IntegrityError", tc.name, chunk, err)
			case wantErr && ie.Offset != tc.wantOff:
				t.Errorf("%s, chunks of %d: error at %d, want %d: %v", tc.name, chunk, ie.Offset, tc.wantOff, err)
			}
		}
	}
	// A stream that ends early is not complete.
	v := bulk.NewPatternVerifier(0)
	v.Check(bulk.PatternAt(0, 100))
	if err := v.Done(101); err == nil {
		t.Error("Done after 100 of 101 bytes: want an error")
	}
}
