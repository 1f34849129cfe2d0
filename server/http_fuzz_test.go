package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"
)

// scriptedConn is a connection whose client sent exactly the given bytes
// and then stopped sending: reads end in EOF, writes are kept.
type scriptedConn struct {
	net.Conn // nil: only the methods below are used
	in       *bytes.Reader
	out      bytes.Buffer
}

func (c *scriptedConn) Read(b []byte) (int, error) { return c.in.Read(b) }

// Write keeps what the server answers, up to 1 MiB: a fuzzed throughput
// request may ask for far more, which a real client would read.
func (c *scriptedConn) Write(b []byte) (int, error) {
	if c.out.Len()+len(b) > 1<<20 {
		return 0, io.ErrShortWrite
	}
	return c.out.Write(b)
}
func (c *scriptedConn) SetDeadline(time.Time) error      { return nil }
func (c *scriptedConn) SetReadDeadline(time.Time) error  { return nil }
func (c *scriptedConn) SetWriteDeadline(time.Time) error { return nil }
func (c *scriptedConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}
}
func (c *scriptedConn) LocalAddr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 2} }
func (c *scriptedConn) Close() error        { return nil }

// FuzzServeHTTP feeds any bytes after an HTTP method to the server's
// HTTP answer, as a hostile client would: it must answer with one whole
// HTTP/1.1 response (or nothing, for a head that never ends), never
// panic, and never read more than its cap of the head.
func FuzzServeHTTP(f *testing.F) {
	for _, seed := range []string{
		"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		"HEAD / HTTP/1.0\n\n",
		"GET  HTTP/1.1\r\n\r\n",
		"POST /x HTTP/2.0\r\n\r\n",
		"GET / HTTP/1.1\r\n" + strings.Repeat("a", 9000),
		"GET \x00\xff HTTP/1.1\r\n\r\n",
		"GET /tlsbench/bulk?bytes=100&phase=3 HTTP/1.1\r\n\r\nGET /tlsbench/bulk?bytes=99999999999 HTTP/1.1\r\n\r\n",
		"POST /tlsbench/bulk?phase=0 HTTP/1.1\r\nContent-Length: 4\r\n\r\nabcdGET / HTTP/1.1\r\n\r\n",
		"GET /tlsbench/source/1 HTTP/1.1\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !looksLikeHTTP(data) {
			return
		}
		s := &Server{idleTimeout: time.Second, connLog: slog.New(slog.NewTextHandler(io.Discard, nil))}
		first := min(len(data), 64)
		c := &scriptedConn{in: bytes.NewReader(data[first:])}
		s.serveHTTP(context.Background(), c, data[:first:first])
		out := c.out.Bytes()
		if len(out) > 0 && (!bytes.HasPrefix(out, []byte("HTTP/1.1 ")) || !bytes.Contains(out, []byte("\r\n\r\n"))) {
			t.Fatalf("answer %q is not an HTTP/1.1 response", out)
		}
		// Throughput requests read their bodies and the requests after
		// them: the cap is on each head (bulk's tests hold it there).
		if read := len(data) - c.in.Len(); read > maxHTTPHead+len(data[:first]) && !bytes.Contains(data, []byte("/tlsbench/")) {
			t.Fatalf("read %d bytes of a head capped at %d", read, maxHTTPHead)
		}
	})
}
