package server_test

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/bulk"
	"github.com/tlsbench/tlsbench/server"
)

// httpConn is a TLS connection to the server that sends requests and
// reads answers with the client's parser.
type httpConn struct {
	t  *testing.T
	c  *tls.Conn
	hr *bulk.HTTPReader
}

func dialHTTP(t *testing.T, addr string, cfg *tls.Config) *httpConn {
	t.Helper()
	c, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(20 * time.Second))
	return &httpConn{t: t, c: c, hr: bulk.NewHTTPReader(c, nil)}
}

// answer reads a response head and its body (whole, up to max bytes).
func (h *httpConn) answer(max int64) (bulk.HTTPResponse, []byte) {
	h.t.Helper()
	head, err := h.hr.ReadHead()
	if err != nil {
		h.t.Fatalf("reading the answer: %v", err)
	}
	r, err := bulk.ParseHTTPResponse(head)
	if err != nil {
		h.t.Fatal(err)
	}
	if r.ContentLength < 0 || r.ContentLength > max {
		h.t.Fatalf("answer %+v: Content-Length not within %d", r, max)
	}
	body := make([]byte, r.ContentLength)
	if _, err := io.ReadFull(h.hr, body); err != nil {
		h.t.Fatalf("reading %d bytes of body: %v", r.ContentLength, err)
	}
	return r, body
}

// TestHTTPBulkServer: downloads arrive byte-exact, several on one
// connection; an upload is checked (200, or 422 naming the byte); a file
// source is sent whole.
func TestHTTPBulkServer(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "src")
	content := bytes.Repeat([]byte("tlsbench source\n"), 5000)
	os.WriteFile(file, content, 0o644)
	addr, cfg := bulkServer(t, server.WithSources(file))
	h := dialHTTP(t, addr, cfg)
	for i, n := range []int64{1, 3<<20 + 5} {
		h.c.Write(bulk.DownloadRequest("localhost", n, int64(i)*1000, 4096))
		r, body := h.answer(n)
		v := bulk.NewPatternVerifier(int64(i) * 1000)
		if r.Status != 200 || !r.KeepAlive || v.Check(body) != nil || v.Done(n) != nil {
			t.Errorf("download %d: %+v, %d bytes not the stream", i, r, len(body))
		}
	}
	h.c.Write(bulk.SourceRequest("localhost", 1, 0))
	if r, body := h.answer(1 << 20); r.Status != 200 || !bytes.Equal(body, content) {
		t.Errorf("file source: %+v, %d bytes", r, len(body))
	}

	// An upload: intact, then with byte 70000 flipped.
	const n = 200_000
	up := make([]byte, 0, n)
	for len(up) < n {
		up = append(up, bulk.PatternAt(int64(7+len(up)), min(n-len(up), 65536))...)
	}
	h.c.Write(append(bulk.UploadRequest("localhost", n, 7, 0), up...))
	if r, body := h.answer(100); r.Status != 200 || string(body) != "200000\n" {
		t.Errorf("intact upload: %+v, %q", r, body)
	}
	up[70000] ^= 0x10
	h.c.Write(append(bulk.UploadRequest("localhost", n, 7, 0), up...))
	r, _ := h.answer(4096)
	if r.Status != 422 || r.KeepAlive || !strings.Contains(r.Error, "byte 70000") {
		t.Errorf("corrupted upload: %+v", r)
	}
}

// TestHTTPBulkRefusals: each bad request gets its status and reason, and
// the connection ends; other paths keep the minimal answer.
func TestHTTPBulkRefusals(t *testing.T) {
	t.Parallel()
	addr, cfg := bulkServer(t)
	for _, tc := range []struct {
		req    string
		status int
		reason string
	}{
		{"GET /tlsbench/source/1 HTTP/1.1\r\nHost: x\r\n\r\n", 404, "the server has 0"},
		{"GET /tlsbench/bulk?bytes=2000000000000 HTTP/1.1\r\n\r\n", 400, "bytes=N"},
		{"POST /tlsbench/bulk HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 411, "chunked"},
		{"GET /tlsbench/bulk?bytes=1 HTTP/1.1\r\n" + strings.Repeat("X: y\r\n", 2000), 431, ""},
		{"GET / HTTP/1.1\r\n\r\n", 200, ""},
	} {
		h := dialHTTP(t, addr, cfg)
		h.c.Write([]byte(tc.req))
		r, body := h.answer(8192)
		if r.Status != tc.status || !strings.Contains(r.Error, tc.reason) || r.KeepAlive {
			t.Errorf("%.50q: %+v %q; want %d %q and the connection closed", tc.req, r, body, tc.status, tc.reason)
		}
		if _, err := h.hr.ReadHead(); !errors.Is(err, io.EOF) {
			t.Errorf("%.50q: after the answer: %v, want the connection closed", tc.req, err)
		}
	}
}

// TestHTTPBulkClientStops: a client that asks for a large download and
// stops reading is cut off by the idle timeout, and the server goes on
// serving others.
func TestHTTPBulkClientStops(t *testing.T) {
	t.Parallel()
	addr, cfg := bulkServer(t, server.WithIdleTimeout(300*time.Millisecond))
	h := dialHTTP(t, addr, cfg)
	h.c.Write(bulk.DownloadRequest("localhost", 1<<30, 0, 0))
	time.Sleep(time.Second)
	n, err := io.Copy(io.Discard, h.hr)
	if err == nil && n >= 1<<30 {
		t.Errorf("read %d bytes: the stalled download was not cut", n)
	}
	h2 := dialHTTP(t, addr, cfg)
	h2.c.Write(bulk.DownloadRequest("localhost", 10, 0, 0))
	if r, _ := h2.answer(10); r.Status != 200 {
		t.Errorf("after a stalled client: %+v", r)
	}
}
