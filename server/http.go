package server

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// An echo connection whose first bytes are an HTTP/1.x request gets a
// minimal HTTP/1.1 answer instead of its request echoed back, so that
// curl, browsers and `openssl s_time -www` can be pointed at the server.
// Everything about the request comes from an untrusted peer: the head is
// read up to maxHTTPHead bytes, within one idle timeout in all, and one
// request is answered per connection.
const maxHTTPHead = 8 << 10

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

// serveHTTP reads the rest of the request head that starts with first and
// writes the answer; the caller closes the connection.
func (s *Server) serveHTTP(conn net.Conn, first []byte) {
	// One idle timeout for the whole head and the answer: a client that
	// trickles its request, or never reads, is cut off.
	conn.SetDeadline(time.Now().Add(s.idleTimeout))
	head := append(make([]byte, 0, 1024), first...)
	buf := make([]byte, 2048)
	for headEnd(head) < 0 {
		if len(head) >= maxHTTPHead {
			s.answerHTTP(conn, "", 431, "Request Header Fields Too Large", "")
			return
		}
		n, err := conn.Read(buf[:min(len(buf), maxHTTPHead-len(head))])
		head = append(head, buf[:n]...)
		if err != nil {
			if n == 0 || headEnd(head) < 0 {
				s.connLog.Debug("incomplete HTTP request", "remote", remoteAddr(conn), "err", err)
				return
			}
		}
	}
	line, _, _ := bytes.Cut(head, []byte("\n"))
	method, version, ok := parseRequestLine(string(bytes.TrimSuffix(line, []byte("\r"))))
	if !ok {
		s.answerHTTP(conn, "", 400, "Bad Request", "")
		return
	}
	s.answerHTTP(conn, method, 200, "OK", version)
}

// headEnd returns the end of the request head in b (after the blank
// line), or -1.
func headEnd(b []byte) int {
	if i := bytes.Index(b, []byte("\r\n\r\n")); i >= 0 {
		return i + 4
	}
	if i := bytes.Index(b, []byte("\n\n")); i >= 0 {
		return i + 2
	}
	return -1
}

// parseRequestLine checks "METHOD target HTTP/1.x" and returns the method
// and version.
func parseRequestLine(line string) (method, version string, ok bool) {
	f := strings.Split(line, " ")
	if len(f) != 3 || f[1] == "" || !strings.HasPrefix(f[2], "HTTP/1.") || len(f[2]) != len("HTTP/1.1") {
		return "", "", false
	}
	return f[0], f[2], true
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
