package bulk_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"testing/iotest"
	"time"

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

// TestStallGuard: a guard keeps a transfer alive while data moves, and
// once its context ends it expires the deadline, so that a read blocked
// on a peer that sends nothing returns at once instead of waiting out the
// timeout.
func TestStallGuard(t *testing.T) {
	t.Parallel()
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	g := &bulk.StallGuard{Conn: a, Timeout: time.Hour, Ctx: ctx}
	go func() {
		bulk.SendPattern(b, 64, 0, 1, nil) // 64 one-byte writes, then silence
	}()
	buf := make([]byte, 1)
	got, err := bulk.Receive(a, 64, buf, bulk.NewPatternVerifier(0), false, g)
	if err != nil || got != 64 {
		t.Fatalf("while data moves: %d bytes, %v", got, err)
	}
	cancel()
	g.Tick() // the 65th call: due to look at the clock and ctx
	done := make(chan error, 1)
	go func() { _, err := a.Read(buf); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("read after cancel: %v, want the deadline exceeded", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a read blocked after the guard's context ended")
	}
}
