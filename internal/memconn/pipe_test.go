package memconn_test

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/memconn"
)

func TestPipeCarriesBothWaysConcurrently(t *testing.T) {
	t.Parallel()
	a, b := memconn.PipeSize(1024) // smaller than the data: writers must wait
	data := make([]byte, 1<<20)
	rand.Read(data)
	want := sha256.Sum256(data)
	// Both ends write a megabyte while reading one: with a bounded buffer
	// this only finishes if reads and writes really run concurrently.
	errs := make(chan error, 4)
	for _, c := range []net.Conn{a, b} {
		go func() { _, err := c.Write(data); errs <- err }()
		go func() {
			got, err := io.ReadAll(io.LimitReader(c, int64(len(data))))
			if err == nil && sha256.Sum256(got) != want {
				err = errors.New("data corrupted")
			}
			errs <- err
		}()
	}
	for i := 0; i < 4; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func TestPipeWriteDoesNotWaitForReader(t *testing.T) {
	t.Parallel()
	// The property net.Pipe lacks and TLS 1.3 needs: a small write
	// completes with nobody reading.
	a, _ := memconn.Pipe()
	a.SetWriteDeadline(time.Now().Add(time.Second))
	if _, err := a.Write([]byte("ticket")); err != nil {
		t.Fatalf("buffered write failed: %v", err)
	}
}

func TestPipeCloseAndDeadlines(t *testing.T) {
	t.Parallel()
	a, b := memconn.Pipe()
	a.Write([]byte("last words"))
	a.Close()
	got, err := io.ReadAll(b)
	if err != nil || !bytes.Equal(got, []byte("last words")) {
		t.Fatalf("after peer close: read %q, %v; want the data then EOF", got, err)
	}
	if _, err := b.Write([]byte("x")); err == nil {
		t.Fatal("write to a closed peer succeeded")
	}
	if _, err := a.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read after own close: %v, want net.ErrClosed", err)
	}

	c, d := memconn.Pipe()
	defer d.Close()
	c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	start := time.Now()
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Fatal("deadline took far too long to fire")
	}
	// Clearing the deadline makes reads wait again.
	c.SetReadDeadline(time.Time{})
	go func() { time.Sleep(10 * time.Millisecond); d.Write([]byte("y")) }()
	if _, err := c.Read(make([]byte, 1)); err != nil {
		t.Fatalf("read after clearing the deadline: %v", err)
	}
}
