package server_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// TestVerifiers: each verifier accepts the exact stream in any chunking
// and names the first wrong byte (or wrong pass) otherwise.
func TestVerifiers(t *testing.T) {
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
			out = append(out, server.PatternAt(phase+int64(len(out)), min(n-len(out), server.MaxBulkBuffer))...)
		}
		return out
	}
	const phase = server.PatternPeriod - 5000 // the stream wraps early
	for _, tc := range []struct {
		name    string
		v       func() server.Verifier
		data    []byte
		flip    int   // -1: none
		wantOff int64 // of the error
	}{
		{"pattern intact", func() server.Verifier { return server.NewPatternVerifier(phase) }, streamAt(phase, 20000), -1, 0},
		{"pattern flip before the wrap", func() server.Verifier { return server.NewPatternVerifier(phase) }, streamAt(phase, 20000), 4999, 4999},
		{"pattern flip after the wrap", func() server.Verifier { return server.NewPatternVerifier(phase) }, streamAt(phase, 20000), 5000, 5000},
		{"pattern wrong phase", func() server.Verifier { return server.NewPatternVerifier(phase + 1) }, streamAt(phase, 20000), -1, 0},
		{"content intact", func() server.Verifier { return server.NewContentVerifier(content) }, repeat(content, 3000), -1, 0},
		{"content flip in pass 3", func() server.Verifier { return server.NewContentVerifier(content) }, repeat(content, 3000), 2001, 2001},
		{"pass hash intact", func() server.Verifier { return server.NewPassHashVerifier(1000, sha256.Sum256(content)) }, repeat(content, 3000), -1, 0},
		{"pass hash flip in pass 2", func() server.Verifier { return server.NewPassHashVerifier(1000, sha256.Sum256(content)) }, repeat(content, 3000), 1500, 2000},
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
			var ie *server.IntegrityError
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
	v := server.NewPatternVerifier(0)
	v.Check(server.PatternAt(0, 100))
	if err := v.Done(101); err == nil {
		t.Error("Done after 100 of 101 bytes: want an error")
	}
}

// bulkServer is an in-process built-in server with the given options.
func bulkServer(t *testing.T, opts ...server.Option) (string, *tls.Config) {
	t.Helper()
	cfg, ca := testpki.Server(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { server.New(cfg, opts...).Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String(), tlsconf.Client(tlsconf.ClientOptions{Version: tls.VersionTLS13, RootCAs: ca.Pool(), ServerName: "localhost"})
}

func dialBulk(t *testing.T, addr string, cfg *tls.Config, setup server.BulkSetup) (*tls.Conn, server.BulkAck) {
	t.Helper()
	c, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write(setup.Marshal()); err != nil {
		t.Fatal(err)
	}
	ack, err := server.ReadBulkAck(c)
	if err != nil {
		t.Fatal(err)
	}
	return c, ack
}

// TestServerDetectsCorruptUpload: the server checks an upload, reads it
// to its end so that the client can hear the verdict, and names the byte.
func TestServerDetectsCorruptUpload(t *testing.T) {
	addr, cfg := bulkServer(t)
	for _, tc := range []struct {
		name   string
		flip   int64 // -1: none
		status int
	}{
		{"intact", -1, server.BulkOK},
		{"byte 123457 flipped", 123457, server.BulkIntegrity},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, ack := dialBulk(t, addr, cfg, server.BulkSetup{Buffer: 4096})
			if ack.Status != server.BulkOK || ack.KTLSTX || ack.KTLSRX || ack.Message != "" {
				t.Fatalf("ack %+v", ack)
			}
			const n = 300_000
			r := server.BulkRound{Directions: server.BulkUpload, Bytes: n, UploadPhase: 42}
			data := append([]byte(nil), server.PatternAt(r.UploadPhase, n)...)
			if tc.flip >= 0 {
				data[tc.flip] ^= 0x80
			}
			c.Write(r.Marshal())
			c.Write(data)
			v, err := server.ReadBulkVerdict(c)
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != tc.status || v.Received != n {
				t.Fatalf("verdict %+v, want status %d after %d bytes", v, tc.status, n)
			}
			if tc.flip >= 0 && !strings.Contains(v.Message, "byte 123457 ") {
				t.Errorf("verdict %q does not name the byte", v.Message)
			}
		})
	}
}

// TestBulkRefusals: what the server will not do, it says, in one line.
func TestBulkRefusals(t *testing.T) {
	file := filepath.Join(t.TempDir(), "src")
	os.WriteFile(file, bytes.Repeat([]byte("tlsbench"), 1000), 0o600)
	addr, cfg := bulkServer(t, server.WithSources(file))
	for _, tc := range []struct {
		name  string
		setup server.BulkSetup
		round *server.BulkRound
		want  string
	}{
		{"unknown source", server.BulkSetup{Buffer: 4096, Source: 2}, nil, "file source 2: the server has 1"},
		{"kTLS from a server without it", server.BulkSetup{Buffer: 4096, KTLSTX: true, KTLSRX: true}, nil, "started without kTLS"},
		{"upload of a file", server.BulkSetup{Buffer: 4096, Source: 1}, &server.BulkRound{Directions: server.BulkUpload, Bytes: 8000}, "can only be downloaded"},
		{"part of a file", server.BulkSetup{Buffer: 4096, Source: 1}, &server.BulkRound{Directions: server.BulkDownload, Bytes: 100}, "whole passes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, ack := dialBulk(t, addr, cfg, tc.setup)
			msg := ack.Message
			if tc.round != nil {
				if ack.Status != server.BulkOK || ack.SourceSize != 8000 {
					t.Fatalf("ack %+v", ack)
				}
				c.Write(tc.round.Marshal())
				v, err := server.ReadBulkVerdict(c)
				if err != nil || v.Status != server.BulkRefused {
					t.Fatalf("verdict %+v, %v: want refused", v, err)
				}
				msg = v.Message
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("message %q, want %q", msg, tc.want)
			}
		})
	}
}

// TestKTLSReadyServerStillEchoes: a server started ready for kTLS still
// answers the handshake benchmark's ping (in user space).
func TestKTLSReadyServerStillEchoes(t *testing.T) {
	for _, opts := range [][]server.Option{nil, {server.WithKTLS()}} {
		addr, cfg := bulkServer(t, opts...)
		c, err := tls.Dial("tcp", addr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write([]byte("ping"))
		got := make([]byte, 4)
		if _, err := io.ReadFull(c, got); err != nil || string(got) != "ping" {
			t.Errorf("with %d options: echo %q, %v", len(opts), got, err)
		}
		c.Close()
	}
}
