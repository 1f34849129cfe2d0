package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/bulk"
)

// An echo connection whose first bytes are an HTTP/1.x request gets a
// minimal HTTP/1.1 answer instead of its request echoed back, so that
// curl, browsers and `openssl s_time -www` can be pointed at the server.
// Everything about the request comes from an untrusted peer: the head is
// read up to maxHTTPHead bytes, within one idle timeout in all, and one
// request is answered per connection (except the throughput requests of
// serveBulkHTTP, which keep the connection).
const maxHTTPHead = bulk.MaxHTTPHead

// httpMethods are the request methods that switch a connection to HTTP.
// An echo client whose first write starts with one of these (and a space)
// gets an HTTP answer instead of its echo.
var httpMethods = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "CONNECT"}

// httpBody is what a GET receives.
const httpBody = "tlsbench: TLS handshake complete\n"

func looksLikeHTTP(first []byte) bool {
	for _, m := range httpMethods {
		if len(first) > len(m) && string(first[:len(m)]) == m && first[len(m)] == ' ' {
			return true
		}
	}
	return false
}

// serveHTTP reads the request head that starts with first and writes the
// answer; the caller closes the connection. Requests for the throughput
// paths (bulk.HTTPPrefix) are served by serveBulkHTTP, on a connection
// kept alive between them; any other request gets the minimal answer and
// the connection ends.
func (s *Server) serveHTTP(ctx context.Context, conn net.Conn, first []byte) {
	hr := bulk.NewHTTPReader(conn, first)
	for n := 0; ctx.Err() == nil; n++ {
		// One idle timeout for the whole head and the answer: a client
		// that trickles its request, or never reads, is cut off.
		conn.SetDeadline(time.Now().Add(s.idleTimeout))
		head, err := hr.ReadHead()
		switch {
		case errors.Is(err, bulk.ErrHTTPHeadTooLong):
			s.answerHTTP(conn, "", 431, "Request Header Fields Too Large", "")
			return
		case err != nil:
			if n == 0 || !errors.Is(err, io.EOF) {
				s.connLog.Debug("incomplete HTTP request", "remote", remoteAddr(conn), "err", err)
			}
			return
		}
		line, _, _ := bytes.Cut(head, []byte("\n"))
		method, target, version, ok := parseRequestLine(string(bytes.TrimSuffix(line, []byte("\r"))))
		if !ok {
			s.answerHTTP(conn, "", 400, "Bad Request", "")
			return
		}
		if !strings.HasPrefix(target, bulk.HTTPPrefix) {
			s.answerHTTP(conn, method, 200, "OK", version)
			return
		}
		if !s.serveBulkHTTP(ctx, conn, hr, head) {
			return
		}
	}
}

// parseRequestLine checks "METHOD target HTTP/1.x" and returns its parts.
func parseRequestLine(line string) (method, target, version string, ok bool) {
	f := strings.Split(line, " ")
	if len(f) != 3 || f[1] == "" || !strings.HasPrefix(f[2], "HTTP/1.") || len(f[2]) != len("HTTP/1.1") {
		return "", "", "", false
	}
	return f[0], f[1], f[2], true
}

// answerHTTP writes a complete HTTP/1.1 response that closes the
// connection; method HEAD gets the head alone.
func (s *Server) answerHTTP(conn net.Conn, method string, code int, status, version string) {
	body := httpBody
	if code != 200 {
		body = fmt.Sprintf("%d %s\n", code, status)
		s.connLog.Info("HTTP request refused", "remote", remoteAddr(conn), "status", code, "reason", status)
	} else {
		s.connLog.Debug("HTTP request answered", "remote", remoteAddr(conn), "method", clip(method), "version", version)
	}
	resp := fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
		code, status, len(body))
	if method != "HEAD" {
		resp += body
	}
	io.WriteString(conn, resp)
}
