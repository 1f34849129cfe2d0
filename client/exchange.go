package client

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/client/sessionid"
)

// Conn is a TLS connection after its handshake, as an exchange sees it:
// a *tls.Conn, or a *sessionid.Conn (a TLS 1.2 session resumed by its
// ID). NetConn is the connection under TLS, where the phases are noted
// (a PhaseConn, when they are recorded).
type Conn interface {
	net.Conn
	NetConn() net.Conn
}

// negotiatedProtocol is the ALPN protocol of c's handshake ("" when none).
func negotiatedProtocol(c Conn) string {
	switch c := c.(type) {
	case *tls.Conn:
		return c.ConnectionState().NegotiatedProtocol
	case *sessionid.Conn:
		return c.ConnectionState().NegotiatedProtocol
	}
	return ""
}

// Exchange runs on a connection after its handshake. It must prove the
// connection carries data and, for TLS 1.3, make the client read what the
// server sent after the handshake (the session ticket).
type Exchange func(c Conn) error

// PingPong writes one byte and reads one byte back: the exchange for
// tlsbench's own echo server. Reading is what matters for TLS 1.3: the
// server's NewSessionTicket precedes the echoed byte, so crypto/tls stores
// the ticket before Read returns.
func PingPong(tc Conn) error {
	_, err := RequestPing.Send(tc, "")
	return err
}

// NoExchange closes right after the handshake. It exists to show what
// goes wrong without an exchange: TLS 1.3 tickets are never read.
func NoExchange(Conn) error { return nil }

var ErrBadEcho = errors.New("unexpected answer")

// Request is the first message sent after a handshake, and what of the
// answer is read. The answer is what makes the client read the server's
// TLS 1.3 NewSessionTicket messages: crypto/tls processes post-handshake
// messages only while reading application data, so a client that closes
// right after the handshake never stores a TLS 1.3 ticket, and every
// "resumed" handshake after it is a full one.
type Request string

const (
	// RequestPing writes one byte and reads it back: tlsbench's own
	// server and other echo servers.
	RequestPing Request = "ping"
	// RequestLine writes "tlsbench\n" and reads one line back, whatever
	// it says: line echo servers such as openssl s_server -rev.
	RequestLine Request = "line"
	// RequestHTTP sends "HEAD / HTTP/1.1" with Host and Connection:
	// close, the smallest request an HTTP server answers, and reads the
	// response head. When the server chose "h2" by ALPN it sends the
	// HTTP/2 connection preface instead and reads the server's first
	// frame.
	RequestHTTP Request = "http"
	// RequestHTTPGet is RequestHTTP with GET, for servers that answer
	// only GET (openssl s_server -www).
	RequestHTTPGet Request = "http-get"
	// RequestWait sends nothing and, on a TLS 1.3 connection, waits
	// (up to waitLimit) for what the server sends after the handshake
	// unasked, its session tickets: servers that answer no request,
	// such as openssl s_server without -www. It proves nothing about
	// the connection but the handshake.
	RequestWait Request = "wait"
	// RequestNone sends nothing and reads nothing.
	RequestNone Request = "none"
	// RequestAuto is not sent: DetectRequest asks the server once which
	// of the others it answers.
	RequestAuto Request = "auto"
)

// Requests lists the valid Request values.
func Requests() []Request {
	return []Request{RequestAuto, RequestHTTP, RequestHTTPGet, RequestPing, RequestLine, RequestWait, RequestNone}
}

// ParseRequest parses a Request name.
func ParseRequest(s string) (Request, error) {
	names := make([]string, 0, len(Requests()))
	for _, r := range Requests() {
		if string(r) == s {
			return r, nil
		}
		names = append(names, string(r))
	}
	return "", fmt.Errorf("unknown request %q (valid: %s)", s, strings.Join(names, ", "))
}

// Exchange returns the request as an Exchange; host is the Host of an
// HTTP request.
func (r Request) Exchange(host string) Exchange {
	switch r {
	case RequestPing:
		return PingPong
	case RequestNone:
		return NoExchange
	}
	return func(tc Conn) error {
		_, err := r.Send(tc, host)
		return err
	}
}

// maxAnswer bounds what one answer's head may take, so that a server
// that streams forever cannot hold a connection.
const maxAnswer = 64 << 10

// h2Preface is the HTTP/2 client connection preface followed by an empty
// SETTINGS frame (RFC 9113, section 3.4): what an HTTP/2 server needs
// before it answers with its own SETTINGS frame.
var h2Preface = []byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")

// Send writes the request on tc and reads the start of the answer: the
// echoed byte, one line, the HTTP/1 response head or the first HTTP/2
// frame. It returns the answer's first line (a description for ping and
// HTTP/2). Read errors are returned as they are; a ping answered with
// another byte, or a line that never ends, wraps errBadEcho.
func (r Request) Send(tc Conn, host string) (string, error) {
	switch r {
	case RequestNone:
		return "", nil
	case RequestPing:
		if _, err := tc.Write([]byte{'p'}); err != nil {
			return "", err
		}
		var b [1]byte
		if _, err := io.ReadFull(tc, b[:]); err != nil {
			return "", err
		}
		answered(tc)
		if b[0] != 'p' {
			return fmt.Sprintf("%q", b[0]), fmt.Errorf("%w: ping answered with %q, not echoed", ErrBadEcho, b[0])
		}
		return "echo", nil
	case RequestLine:
		if _, err := io.WriteString(tc, "tlsbench\n"); err != nil {
			return "", err
		}
		var line []byte
		var b [1]byte
		for {
			if _, err := io.ReadFull(tc, b[:]); err != nil {
				return firstLine(line), err
			}
			if len(line) == 0 {
				answered(tc)
			}
			if b[0] == '\n' {
				return firstLine(line), nil
			}
			if line = append(line, b[0]); len(line) > maxAnswer {
				return firstLine(line), fmt.Errorf("%w: no end of line in the first 64 KiB", ErrBadEcho)
			}
		}
	case RequestWait:
		return "", waitUnasked(tc, waitLimit)
	case RequestHTTP, RequestHTTPGet:
		if negotiatedProtocol(tc) == "h2" {
			return sendH2Preface(tc)
		}
		method := "HEAD"
		if r == RequestHTTPGet {
			method = "GET"
		}
		req := method + " / HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: tlsbench\r\nConnection: close\r\n\r\n"
		if _, err := io.WriteString(tc, req); err != nil {
			return "", err
		}
		return readHTTPHead(tc)
	}
	if r == RequestAuto {
		return "", errors.New("request auto is chosen by asking the server which request it answers; it cannot be sent itself")
	}
	return "", fmt.Errorf("unknown request %q", r)
}

// readHTTPHead reads up to the end of an HTTP/1 response head, or what the
// server sent before closing. Any answer will do, an echo server's too:
// the handshake is what is measured, and the answer only proves the
// connection carries data; its first line goes into probe reports.
func readHTTPHead(tc Conn) (string, error) {
	buf := make([]byte, 0, 4096)
	tmp := make([]byte, 4096)
	for !bytes.Contains(buf, []byte("\r\n\r\n")) && len(buf) < maxAnswer {
		n, err := tc.Read(tmp)
		if n > 0 && len(buf) == 0 {
			answered(tc)
		}
		buf = append(buf, tmp[:n]...)
		if err != nil {
			if len(buf) > 0 && errors.Is(err, io.EOF) {
				break
			}
			return firstLine(buf), err
		}
	}
	return firstLine(buf), nil
}

func sendH2Preface(tc Conn) (string, error) {
	if _, err := tc.Write(h2Preface); err != nil {
		return "", err
	}
	var hdr [9]byte
	if _, err := io.ReadFull(tc, hdr[:]); err != nil {
		return "", err
	}
	answered(tc)
	names := []string{"DATA", "HEADERS", "PRIORITY", "RST_STREAM", "SETTINGS", "PUSH_PROMISE", "PING", "GOAWAY", "WINDOW_UPDATE", "CONTINUATION"}
	name := fmt.Sprintf("type-%d", hdr[3])
	if int(hdr[3]) < len(names) {
		name = names[hdr[3]]
	}
	return "HTTP/2 " + name + " frame", nil
}

// answered notes the arrival of the answer's first byte on a connection
// whose phases are recorded (its raw connection is a phaseConn): the end
// of the first-response phase. It is taken where the exchange reads the
// answer, not where the raw connection first reads after the handshake,
// which in TLS 1.3 may be the server's session ticket.
func answered(tc Conn) {
	if pc, ok := tc.NetConn().(*PhaseConn); ok && pc.Answer.IsZero() {
		pc.Answer = time.Now()
	}
}

// firstLine is the first line of b, cut to 120 bytes of valid UTF-8, for
// reports.
func firstLine(b []byte) string {
	if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
		b = b[:i]
	}
	if len(b) > 120 {
		b = b[:120]
	}
	return string(bytes.ToValidUTF8(b, []byte("?")))
}
