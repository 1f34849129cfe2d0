package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// ProxyDialer reaches Target through an HTTP proxy: it connects to the
// proxy, asks it to `CONNECT Target`, and returns the connection once the
// proxy answers 2xx, ready for the TLS handshake with whatever the proxy
// puts at the other end (the origin, or the proxy itself when it
// intercepts TLS).
//
// Everything the proxy answers is treated as hostile: the answer's head is
// read up to maxProxyHead bytes and within the dial's deadline, and bytes
// the proxy sends past it (none should come before the client speaks) are
// not lost: the connection returned delivers them first.
type ProxyDialer struct {
	// Proxy is the proxy's host:port.
	Proxy string
	// Target is the host:port the proxy is asked to connect to.
	Target string
	// Inner opens the connection to the proxy (nil: TCP to Proxy).
	Inner Dialer
}

// maxProxyHead caps the proxy's answer to CONNECT (status line and
// headers).
const maxProxyHead = 8 << 10

// ProxyError is a proxy's refusal of CONNECT: its status, and its own
// reason when it gives one in a header (X-Tlsbench-Error from tlsbench's
// proxy, X-Squid-Error from Squid), else its status line's reason phrase.
type ProxyError struct {
	Proxy  string
	Target string
	Status int
	Reason string
	// Header names the header the reason came from (X-Tlsbench-Error,
	// X-Squid-Error); empty for the status line's phrase.
	Header string
	// Advice, when set, replaces the advice for Failure() at the end
	// (a caller's Words.Advice, naming its own settings).
	Advice string
}

// The refusals of CONNECT Words.Advice can advise on (ProxyError.Failure).
const (
	// AdviceProxyUntrusted: the proxy did not trust the target's
	// certificate.
	AdviceProxyUntrusted = "proxy-untrusted"
	// AdviceProxyUnreachable: the proxy could not connect to the target.
	AdviceProxyUnreachable = "proxy-unreachable"
	// AdviceProxyFull: the proxy is at its connection limit.
	AdviceProxyFull = "proxy-full"
	// AdviceProxyPort: the proxy does not tunnel to the target's port.
	AdviceProxyPort = "proxy-port"
	// AdviceProxySource: the proxy does not serve this client.
	AdviceProxySource = "proxy-source"
	// AdviceProxyDest: the proxy does not tunnel to the target's
	// address or name.
	AdviceProxyDest = "proxy-destination"
)

// errorHeaderTlsbench is the reason header of tlsbench's own proxy.
const errorHeaderTlsbench = "X-Tlsbench-Error"

// Failure classifies the refusal by its status and the proxy's reason,
// for advice: one of the AdviceProxy constants, or "" for none known.
func (e *ProxyError) Failure() string {
	reason := strings.ToLower(e.Reason)
	switch e.Status {
	case 403:
		switch {
		case strings.HasPrefix(reason, "destination not allowed"):
			return AdviceProxyDest
		case strings.Contains(reason, "port"):
			return AdviceProxyPort
		case strings.Contains(reason, "address"), strings.Contains(reason, "client"):
			return AdviceProxySource
		}
		return ""
	case 502, 503, 504:
		switch {
		case strings.Contains(reason, "certificate"), strings.Contains(reason, "x509"),
			strings.Contains(reason, "err_secure_connect_fail"):
			return AdviceProxyUntrusted
		case e.Status == 503 && strings.EqualFold(e.Header, errorHeaderTlsbench):
			// tlsbench's proxy answers 503 for its connection limit
			// only; other proxies for targets they cannot reach too
			// (Squid: ERR_CONNECT_FAIL).
			return AdviceProxyFull
		}
		return AdviceProxyUnreachable
	}
	return ""
}

func (e *ProxyError) Error() string {
	what := fmt.Sprintf("proxy %s answered CONNECT %s with %d", e.Proxy, e.Target, e.Status)
	if e.Reason != "" {
		what += " (" + e.Reason + ")"
	}
	if f := e.Failure(); f != "" {
		advice := e.Advice
		if advice == "" {
			advice = defaultAdvice[f]
		}
		return what + ": " + advice
	}
	switch {
	case e.Status == 407:
		return what + ": the proxy wants authentication, which is not supported: allow this client without it"
	case e.Status == 403:
		return what + ": the proxy refuses this client or this destination port: allow them in its rules"
	case e.Status == 405 || e.Status == 501:
		return what + ": the proxy does not tunnel with CONNECT: is it an HTTP forward proxy?"
	}
	return what
}

// ProxyDialError is a proxy that could not be reached: the connection to
// the proxy itself failed (refused: nothing listens there).
type ProxyDialError struct {
	Proxy string
	Err   error
}

func (e *ProxyDialError) Error() string {
	return "connecting to proxy " + e.Proxy + ": " + e.Err.Error()
}
func (e *ProxyDialError) Unwrap() error { return e.Err }

// RefusedHint is the advice for a connection refused: by the proxy when
// err says it was the proxy that refused, else by the server.
func RefusedHint(err error) string {
	var pe *ProxyDialError
	if errors.As(err, &pe) {
		return "is the proxy listening there?"
	}
	return "is the server listening there?"
}

// Transport implements Dialer: the inner dialer's transport ("tcp").
func (d ProxyDialer) Transport() string {
	if d.Inner != nil {
		return d.Inner.Transport()
	}
	return "tcp"
}

// Dial connects to the proxy and asks it to CONNECT to Target, all
// within deadline; ctx ending interrupts the exchange.
func (d ProxyDialer) Dial(ctx context.Context, deadline time.Time) (net.Conn, error) {
	inner := d.Inner
	if inner == nil {
		inner = TCPDialer{Addr: d.Proxy}
	}
	c, err := inner.Dial(ctx, deadline)
	if err != nil {
		return nil, &ProxyDialError{Proxy: d.Proxy, Err: err}
	}
	if !deadline.IsZero() {
		c.SetDeadline(deadline)
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	conn, err := d.connect(c)
	if !stop() && err == nil {
		err = ctx.Err()
	}
	if err != nil {
		c.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	c.SetDeadline(time.Time{})
	return conn, nil
}

// Connect sends the CONNECT request on c and reads the answer.
func (d ProxyDialer) connect(c net.Conn) (net.Conn, error) {
	req := "CONNECT " + d.Target + " HTTP/1.1\r\nHost: " + d.Target + "\r\nUser-Agent: tlsbench\r\n\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		return nil, d.ioError("sending CONNECT", err)
	}
	head, rest, err := readProxyHead(c)
	if err != nil {
		return nil, d.ioError("reading the answer to CONNECT", err)
	}
	status, reason, header, err := parseProxyHead(head)
	if err != nil {
		return nil, fmt.Errorf("proxy %s: %w", d.Proxy, err)
	}
	if status/100 != 2 {
		return nil, &ProxyError{Proxy: d.Proxy, Target: d.Target, Status: status, Reason: reason, Header: header}
	}
	if len(rest) > 0 {
		return &prefixConn{Conn: c, prefix: rest}, nil
	}
	return c, nil
}

// ioError says what went wrong talking to the proxy, and what to check.
func (d ProxyDialer) ioError(doing string, err error) error {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("proxy %s: %s: no answer in time (is it an HTTP proxy, and not overloaded?): %w", d.Proxy, doing, err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("proxy %s: %s: the proxy closed the connection (is it an HTTP proxy that allows this client?): %w", d.Proxy, doing, io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("proxy %s: %s: %w", d.Proxy, doing, err)
}

var errProxyHeadTooLong = fmt.Errorf("the answer to CONNECT has no end within %d bytes: not an HTTP proxy?", maxProxyHead)

// readProxyHead reads until the end of the answer's head (the blank
// line), at most maxProxyHead bytes of it. rest is what came after the
// head in the same reads.
func readProxyHead(r io.Reader) (head, rest []byte, err error) {
	buf := make([]byte, 0, 1024)
	for {
		if i := bytes.Index(buf, []byte("\r\n\r\n")); i >= 0 {
			return buf[:i+4], buf[i+4:], nil
		}
		if len(buf) >= maxProxyHead {
			return nil, nil, errProxyHeadTooLong
		}
		if cap(buf)-len(buf) < 512 {
			buf = append(buf, make([]byte, 1024)...)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), maxProxyHead+4)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if bytes.Contains(buf, []byte("\r\n\r\n")) {
				continue
			}
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, nil, err
		}
	}
}

// parseProxyHead parses "HTTP/1.x NNN reason" and the headers, and
// returns the status and the proxy's reason: its error header when it
// sends one (named in header), else the status line's reason phrase.
func parseProxyHead(head []byte) (status int, reason, header string, err error) {
	lines := strings.Split(strings.TrimSuffix(string(head), "\r\n\r\n"), "\r\n")
	proto, rest, _ := strings.Cut(lines[0], " ")
	code, phrase, _ := strings.Cut(rest, " ")
	status, err = strconv.Atoi(code)
	if (proto != "HTTP/1.1" && proto != "HTTP/1.0") || len(code) != 3 || err != nil || status < 100 {
		return 0, "", "", fmt.Errorf("the answer to CONNECT is not HTTP/1.x: %q", clipText(lines[0], 80))
	}
	reason = strings.TrimSpace(phrase)
	for _, line := range lines[1:] {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch n := strings.ToLower(strings.TrimSpace(name)); n {
		case "x-tlsbench-error", "x-squid-error":
			if v := strings.TrimSpace(value); v != "" {
				reason = v
				header = map[string]string{"x-tlsbench-error": errorHeaderTlsbench, "x-squid-error": "X-Squid-Error"}[n]
			}
		}
	}
	return status, clipText(reason, 200), header, nil
}

// clipText shortens s, and replaces what is not printable ASCII, for an
// error message that quotes a peer.
func clipText(s string, n int) string {
	b := []byte(s)
	if len(b) > n {
		b = append(b[:n], "..."...)
	}
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	return string(b)
}

// prefixConn delivers bytes read past the proxy's answer before reading
// from the connection again.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (c *prefixConn) Read(b []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(b, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}

// NetConn returns the connection to the proxy, for code that needs the
// socket itself (kTLS); bytes still buffered are not in it.
func (c *prefixConn) NetConn() net.Conn { return c.Conn }
