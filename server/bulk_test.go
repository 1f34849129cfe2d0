package server_test

import (
	"bytes"
	"crypto/tls"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/bulk"
	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// bulkServer is an in-process built-in server with the given options.
func bulkServer(t *testing.T, opts ...server.Option) (string, *tls.Config) {
	t.Helper()
	cfg, ca := testpki.Server(t)
	return servertest.Start(t, server.New(cfg, opts...)).Addr, tlsconf.Client(tlsconf.ClientOptions{Version: tls.VersionTLS13, RootCAs: ca.Pool(), ServerName: "localhost"})
}

func dialBulk(t *testing.T, addr string, cfg *tls.Config, setup bulk.Setup) (*tls.Conn, bulk.Ack) {
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
	ack, err := bulk.ReadAck(c)
	if err != nil {
		t.Fatal(err)
	}
	return c, ack
}

// TestServerDetectsCorruptUpload: the server checks an upload, reads it
// to its end so that the client can hear the verdict, and names the byte.
func TestServerDetectsCorruptUpload(t *testing.T) {
	t.Parallel()
	addr, cfg := bulkServer(t)
	for _, tc := range []struct {
		name   string
		flip   int64 // -1: none
		status int
	}{
		{"intact", -1, bulk.OK},
		{"byte 123457 flipped", 123457, bulk.Integrity},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, ack := dialBulk(t, addr, cfg, bulk.Setup{Buffer: 4096})
			if ack.Status != bulk.OK || ack.KTLSTX || ack.KTLSRX || ack.Message != "" {
				t.Fatalf("ack %+v", ack)
			}
			const n = 300_000
			r := bulk.Round{Directions: bulk.Upload, Bytes: n, UploadPhase: 42}
			data := append([]byte(nil), bulk.PatternAt(r.UploadPhase, n)...)
			if tc.flip >= 0 {
				data[tc.flip] ^= 0x80
			}
			c.Write(r.Marshal())
			c.Write(data)
			v, err := bulk.ReadVerdict(c)
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
	t.Parallel()
	file := filepath.Join(t.TempDir(), "src")
	os.WriteFile(file, bytes.Repeat([]byte("tlsbench"), 1000), 0o600)
	addr, cfg := bulkServer(t, server.WithSources(file))
	for _, tc := range []struct {
		name  string
		setup bulk.Setup
		round *bulk.Round
		want  string
	}{
		{"unknown source", bulk.Setup{Buffer: 4096, Source: 2}, nil, "file source 2: the server has 1"},
		{"kTLS from a server without it", bulk.Setup{Buffer: 4096, KTLSTX: true, KTLSRX: true}, nil, "started without kernel TLS"},
		{"upload of a file", bulk.Setup{Buffer: 4096, Source: 1}, &bulk.Round{Directions: bulk.Upload, Bytes: 8000}, "can only be downloaded"},
		{"part of a file", bulk.Setup{Buffer: 4096, Source: 1}, &bulk.Round{Directions: bulk.Download, Bytes: 100}, "whole passes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, ack := dialBulk(t, addr, cfg, tc.setup)
			msg := ack.Message
			if tc.round != nil {
				if ack.Status != bulk.OK || ack.SourceSize != 8000 {
					t.Fatalf("ack %+v", ack)
				}
				c.Write(tc.round.Marshal())
				v, err := bulk.ReadVerdict(c)
				if err != nil || v.Status != bulk.Refused {
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
	t.Parallel()
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
