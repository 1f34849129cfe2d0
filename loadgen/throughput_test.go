package loadgen_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/bulk"
	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/tlsconf"
)

func throughputCase(addr string, roots *tls.Config, dir string) loadgen.ThroughputCase {
	return loadgen.ThroughputCase{
		Name: "tp", Version: tls.VersionTLS13, Cipher: ktls.CipherChaCha20Poly1305, Buffer: 16 << 10,
		Direction: dir, Bytes: 1 << 20, Concurrency: 1, Iterations: 1,
		Client: roots, Dialer: client.TCPDialer{Addr: addr},
	}
}

// fakeBulkServer speaks the bulk protocol with the given round handler
// instead of the built-in server's, to feed the client what a broken
// server or network would.
func fakeBulkServer(t *testing.T, round func(c *tls.Conn, r bulk.Round)) (string, *tls.Config) {
	t.Helper()
	cfg, ca := testpki.Server(t)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				c := nc.(*tls.Conn)
				defer c.Close()
				setup := make([]byte, 16)
				if _, err := io.ReadFull(c, setup); err != nil || setup[0] != bulk.Magic {
					return
				}
				c.Write(bulk.Ack{Status: bulk.OK}.Marshal())
				for {
					hdr := make([]byte, 32)
					if _, err := io.ReadFull(c, hdr); err != nil {
						return
					}
					r, err := bulk.ParseRound(hdr)
					if err != nil {
						return
					}
					round(c, r)
				}
			}()
		}
	}()
	return ln.Addr().String(), tlsconf.Client(tlsconf.ClientOptions{RootCAs: ca.Pool(), ServerName: "localhost"})
}

// sendCorrupted sends the stream a round asks for, changed by corrupt.
func sendCorrupted(c *tls.Conn, r bulk.Round, corrupt func(pos int64, b []byte)) {
	for sent := int64(0); sent < r.Bytes; {
		n := int(min(16<<10, r.Bytes-sent))
		b := append([]byte(nil), bulk.PatternAt(r.DownloadPhase+sent, n)...)
		corrupt(sent, b)
		if _, err := c.Write(b); err != nil {
			return
		}
		sent += int64(n)
	}
	c.Write(bulk.Verdict{Status: bulk.OK}.Marshal())
}

// TestThroughputIntegrityFailsLoudly: whatever goes wrong with the bytes,
// the case fails with an IntegrityError that names the first wrong byte
// (or the server's report), never with a figure.
func TestThroughputIntegrityFailsLoudly(t *testing.T) {
	t.Parallel()
	flipAt := func(at int64) func(int64, []byte) {
		return func(pos int64, b []byte) {
			if at >= pos && at < pos+int64(len(b)) {
				b[at-pos] ^= 0x20
			}
		}
	}
	for _, tc := range []struct {
		name      string
		dir       string
		round     func(*tls.Conn, bulk.Round)
		offset    int64  // of the first wrong byte; -1: reported by the server
		wantInMsg string // in the error
	}{
		{"one bit flipped", loadgen.DirectionDownload, func(c *tls.Conn, r bulk.Round) { sendCorrupted(c, r, flipAt(100_000)) }, 100_000, "byte 100000"},
		{"flipped past the first period", loadgen.DirectionDownload, func(c *tls.Conn, r bulk.Round) {
			sendCorrupted(c, r, flipAt(bulk.PatternPeriod+3))
		}, bulk.PatternPeriod + 3, "FAILED"},
		{"stream out of step", loadgen.DirectionDownload, func(c *tls.Conn, r bulk.Round) {
			r.DownloadPhase += 16 << 10 // a chunk dropped at the start
			sendCorrupted(c, r, func(int64, []byte) {})
		}, 0, "out of step"},
		{"another connection's phase", loadgen.DirectionDownload, func(c *tls.Conn, r bulk.Round) {
			r.DownloadPhase = r.UploadPhase
			sendCorrupted(c, r, func(int64, []byte) {})
		}, 0, "FAILED"},
		{"server reports a bad upload", loadgen.DirectionUpload, func(c *tls.Conn, r bulk.Round) {
			io.CopyN(io.Discard, c, r.Bytes)
			c.Write(bulk.Verdict{Status: bulk.Integrity, Received: r.Bytes,
				Message: (&bulk.IntegrityError{Offset: 7, Got: 1, Want: 2}).Error()}.Marshal())
		}, -1, "the server, receiving, reports: data integrity check FAILED: byte 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, cfg := fakeBulkServer(t, tc.round)
			ttc := throughputCase(addr, cfg, tc.dir)
			ttc.Bytes = 5 << 19 // 2.5 MiB: more than two periods of the stream
			rec, err := loadgen.RunThroughput(context.Background(), ttc)
			var ie *bulk.IntegrityError
			if rec != nil || !errors.As(err, &ie) {
				t.Fatalf("record %v, error %v: want no record and an IntegrityError", rec, err)
			}
			if tc.offset >= 0 && ie.Offset != tc.offset || tc.offset < 0 && ie.Remote == "" {
				t.Errorf("error %+v, want the first wrong byte at %d", ie, tc.offset)
			}
			if !strings.Contains(err.Error(), tc.wantInMsg) || !strings.HasPrefix(err.Error(), "tp: ") {
				t.Errorf("error %q: want the case name and %q", err, tc.wantInMsg)
			}
		})
	}
}

// TestThroughputShortStream: a server that stops early is an I/O error,
// not an integrity failure and not a measurement.
func TestThroughputShortStream(t *testing.T) {
	t.Parallel()
	addr, cfg := fakeBulkServer(t, func(c *tls.Conn, r bulk.Round) {
		c.Write(bulk.PatternAt(r.DownloadPhase, 1000))
		c.Close()
	})
	_, err := loadgen.RunThroughput(context.Background(), throughputCase(addr, cfg, loadgen.DirectionDownload))
	var ie *bulk.IntegrityError
	if err == nil || errors.As(err, &ie) || !strings.Contains(err.Error(), "after 1000 of 1048576 bytes") {
		t.Errorf("error %v: want an I/O error that says how far it got", err)
	}
}

// TestThroughputWrongCipherRefused: the client refuses to measure a cipher
// other than the case's, and TLS 1.3 AES-256-GCM is not runnable.
func TestThroughputWrongCipherRefused(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(cfg *tls.Config) { cfg.MaxVersion = tls.VersionTLS12 })
	tc := throughputCase(s.addr, tlsconf.Client(tlsconf.ClientOptions{RootCAs: s.roots, ServerName: "localhost"}), loadgen.DirectionDownload)
	_, err := loadgen.RunThroughput(context.Background(), tc)
	if err == nil || !strings.Contains(err.Error(), "negotiated TLS 1.2, want TLS 1.3") {
		t.Errorf("TLS 1.2-only server: %v", err)
	}
	tc.Cipher = ktls.CipherAES256GCM
	_, err = loadgen.RunThroughput(context.Background(), tc)
	if !errors.Is(err, ktls.ErrTLS13AES256) {
		t.Errorf("TLS 1.3 AES-256-GCM: %v, want ktls.ErrTLS13AES256", err)
	}
}

// TestThroughputKTLSOnRefused: --ktls on against a kernel (or server)
// that cannot gives the reason, not a user-space figure.
func TestThroughputKTLSOnRefused(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	tc := throughputCase(s.addr, tlsconf.Client(tlsconf.ClientOptions{RootCAs: s.roots, ServerName: "localhost"}), loadgen.DirectionDownload)
	tc.KTLS = ktls.ModeOn
	rec, err := loadgen.RunThroughput(context.Background(), tc)
	// The kernel's refusal is internal/ktls's own message.
	want := "KTLS on: kTLS is not supported"
	if ktls.Supported() == nil {
		// A kTLS kernel: this in-process server was started without
		// WithKTLS, and says so.
		want = "KTLS on: server: user-space TLS: the server was started without kernel TLS"
	}
	if rec != nil || err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("record %v, error %v: want %q", rec, err, want)
	}
}

// TestThroughputConcurrentConnections: every connection's stream is
// checked separately (each starts at its own phase).
func TestThroughputConcurrentConnections(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	tc := throughputCase(s.addr, tlsconf.Client(tlsconf.ClientOptions{RootCAs: s.roots, ServerName: "localhost"}), loadgen.DirectionBoth)
	tc.Concurrency, tc.Bytes, tc.Buffer, tc.Iterations, tc.Warmup = 4, 256<<10, 4<<10, 2, 1
	rec, err := loadgen.RunThroughput(context.Background(), tc)
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(2 * 4 * 2 * (256 << 10)); rec.Extra["bytes"] != want || rec.Handshakes != 4 {
		t.Errorf("bytes %v connections %d, want %v and 4", rec.Extra["bytes"], rec.Handshakes, want)
	}
}

// TestThroughputInterrupted: when ctx ends, what was measured is returned
// with the error, and says so.
func TestThroughputInterrupted(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	tc := throughputCase(s.addr, tlsconf.Client(tlsconf.ClientOptions{RootCAs: s.roots, ServerName: "localhost"}), loadgen.DirectionDownload)
	tc.Bytes, tc.Duration, tc.Iterations = 0, 100*time.Millisecond, 1000
	// Long enough for the handshake, the warm-up and a first 100 ms
	// iteration on a loaded machine (500 ms was not, now and then), far
	// shorter than the 1000 iterations.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	rec, err := loadgen.RunThroughput(ctx, tc)
	if !errors.Is(err, context.DeadlineExceeded) || rec == nil || rec.Iterations == 0 || rec.Iterations >= 1000 ||
		!strings.Contains(strings.Join(rec.Notes, "\n"), "interrupted after") {
		t.Fatalf("record %v, error %v: want the iterations measured so far, noted, and ctx's error", rec, err)
	}
}

// breakingDialer dials TCP and keeps the connections it made, so that a
// test can break them mid-case.
type breakingDialer struct {
	client.TCPDialer
	mu    sync.Mutex
	conns []net.Conn
}

func (d *breakingDialer) Dial(ctx context.Context, deadline time.Time) (net.Conn, error) {
	c, err := d.TCPDialer.Dial(ctx, deadline)
	if err == nil {
		d.mu.Lock()
		d.conns = append(d.conns, c)
		d.mu.Unlock()
	}
	return c, err
}

func (d *breakingDialer) breakAll() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.conns {
		c.Close()
	}
}

// TestThroughputFailureKeepsMeasured: a connection that breaks after
// some iterations were measured (a server that died, seen before the
// death is) fails the case, and the record of the iterations before it
// is kept, marked failed, with the error.
func TestThroughputFailureKeepsMeasured(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	tc := throughputCase(s.addr, tlsconf.Client(tlsconf.ClientOptions{RootCAs: s.roots, ServerName: "localhost"}), loadgen.DirectionDownload)
	d := &breakingDialer{TCPDialer: client.TCPDialer{Addr: s.addr}}
	tc.Dialer, tc.Bytes, tc.Iterations = d, 64<<10, 1000
	tc.Progress = func(p loadgen.ThroughputProgress) {
		if !p.Warmup && p.Iteration == 3 {
			d.breakAll()
		}
	}
	rec, err := loadgen.RunThroughput(context.Background(), tc)
	var te *loadgen.ThroughputError
	if !errors.As(err, &te) {
		t.Fatalf("error %v (%T), want a failed throughput case", err, err)
	}
	if rec == nil || rec.Iterations != 3 || rec.Verdict != measure.VerdictFailed || rec.StoppedBy != results.StoppedFailed ||
		!strings.Contains(strings.Join(rec.Notes, "\n"), "failed after 3 of 1000 iterations") {
		t.Fatalf("record %+v: want the 3 iterations measured before, failed, noted", rec)
	}
}
