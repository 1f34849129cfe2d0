package bulk_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/tlsbench/tlsbench/bulk"
)

// TestSendReceive: what SendPattern writes, Receive accepts in any read
// size; a flipped byte is named, and with drain the receiver still reads
// to the end so that the sender's writes complete.
func TestSendReceive(t *testing.T) {
	t.Parallel()
	const n, phase = 3<<20 + 17, 12345
	var sent bytes.Buffer
	if err := bulk.SendPattern(&sent, n, phase, 64<<10, nil); err != nil {
		t.Fatal(err)
	}
	if sent.Len() != n {
		t.Fatalf("sent %d bytes, want %d", sent.Len(), n)
	}
	data := sent.Bytes()
	buf := make([]byte, 16<<10)
	got, err := bulk.Receive(iotest.HalfReader(bytes.NewReader(data)), n, buf, bulk.NewPatternVerifier(phase), false, nil)
	if err != nil || got != n {
		t.Fatalf("intact: %d bytes, %v", got, err)
	}

	bad := append([]byte(nil), data...)
	bad[1<<20] ^= 1
	for _, drain := range []bool{false, true} {
		r := bytes.NewReader(bad)
		got, err := bulk.Receive(r, n, buf, bulk.NewPatternVerifier(phase), drain, nil)
		var ie *bulk.IntegrityError
		if !errors.As(err, &ie) || ie.Offset != 1<<20 {
			t.Errorf("drain %v: %v, want an integrity error at byte %d", drain, err, 1<<20)
		}
		if drain && (got != n || r.Len() != 0) {
			t.Errorf("drain: read %d of %d bytes, %d left", got, n, r.Len())
		}
		if !drain && got >= n {
			t.Errorf("no drain: read all %d bytes after the error", got)
		}
	}

	// A stream that ends early says how far it got.
	got, err = bulk.Receive(bytes.NewReader(data[:1000]), n, buf, bulk.NewPatternVerifier(phase), false, nil)
	if !errors.Is(err, io.ErrUnexpectedEOF) || got != 1000 {
		t.Errorf("short stream: %d bytes, %v", got, err)
	}
}
