package loadgen

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Exchange runs on a connection after its handshake. It must prove the
// connection carries data and, for TLS 1.3, make the client read what the
// server sent after the handshake (the session ticket).
type Exchange func(tc *tls.Conn) error

// PingPong writes one byte and reads one byte back: the exchange for
// tlsbench's own echo server. Reading is what matters for TLS 1.3: the
// server's NewSessionTicket precedes the echoed byte, so crypto/tls stores
// the ticket before Read returns.
func PingPong(tc *tls.Conn) error {
	if _, err := tc.Write([]byte{'p'}); err != nil {
		return err
	}
	var b [1]byte
	if _, err := io.ReadFull(tc, b[:]); err != nil {
		return err
	}
	if b[0] != 'p' {
		return fmt.Errorf("%w: ping answered with %q", errBadEcho, b[0])
	}
	return nil
}

var errBadEcho = errors.New("server did not echo")

// NoExchange closes right after the handshake. It exists to show what
// goes wrong without an exchange: TLS 1.3 tickets are never read.
func NoExchange(*tls.Conn) error { return nil }

// LineExchange writes "tlsbench\n" and reads one line back, whatever it
// says: for line-oriented echo servers such as openssl s_server -rev.
func LineExchange(tc *tls.Conn) error {
	if _, err := io.WriteString(tc, "tlsbench\n"); err != nil {
		return err
	}
	var b [1]byte
	for n := 0; ; n++ {
		if _, err := io.ReadFull(tc, b[:]); err != nil {
			return err
		}
		if b[0] == '\n' {
			return nil
		}
		if n > 64<<10 {
			return fmt.Errorf("%w: no end of line in the first 64 KiB", errBadEcho)
		}
	}
}

// HTTPExchange returns an exchange that sends a minimal HTTP/1.1 HEAD
// request for / and reads the response head, for web servers (nginx,
// haproxy, envoy). HEAD keeps the response small; the status line is
// checked to be HTTP, not to be 200, since the handshake is what is
// measured.
func HTTPExchange(host string) Exchange {
	req := "HEAD / HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: tlsbench\r\nConnection: close\r\n\r\n"
	return func(tc *tls.Conn) error {
		if _, err := io.WriteString(tc, req); err != nil {
			return err
		}
		br := bufio.NewReaderSize(tc, 4096)
		status, err := br.ReadString('\n')
		if err != nil {
			return err
		}
		if !strings.HasPrefix(status, "HTTP/1.") {
			return fmt.Errorf("%w: not an HTTP response: %q", errBadEcho, strings.TrimSpace(status))
		}
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return err
			}
			if line == "\r\n" || line == "\n" {
				return nil
			}
		}
	}
}

// Request names the exchanges for --request.
const (
	RequestPing = "ping"
	RequestLine = "line"
	RequestHTTP = "http"
	RequestNone = "none"
)

// ExchangeFor returns the exchange --request names; host is the Host of
// an HTTP request.
func ExchangeFor(request, host string) (Exchange, error) {
	switch request {
	case RequestPing:
		return PingPong, nil
	case RequestLine:
		return LineExchange, nil
	case RequestHTTP:
		return HTTPExchange(host), nil
	case RequestNone:
		return NoExchange, nil
	}
	return nil, fmt.Errorf("unknown request %q (valid: ping, line, http, none)", request)
}
