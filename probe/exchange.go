package probe

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/tlsbench/tlsbench/loadgen"
)

// Bounds on what one exchange reads, so that a server that streams
// forever cannot hold the probe.
const (
	maxHeaderBytes = 64 << 10
	maxDrainBytes  = 1 << 20
)

// h2Preface is the HTTP/2 client connection preface followed by an empty
// SETTINGS frame (RFC 9113, Section 3.4): what an HTTP/2 server needs
// before it answers with its own SETTINGS frame.
var h2Preface = []byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")

// answer is what the server said to the request.
type answer struct {
	// First is the first line of the answer (or a description of it).
	First string
	Err   error
}

// exchange sends o.Request on tc, reads the answer and then keeps reading
// for o.TicketWait (or until the server closes), so that every
// post-handshake message the server sends around its answer (TLS 1.3
// tickets) is processed by crypto/tls and stored in the session cache.
func (o *Options) exchange(tc *tls.Conn, host string) answer {
	a := o.request(tc, host)
	drain(tc, o.TicketWait)
	return a
}

// loadExchange is the exchange of the load test: the request and its
// answer, without the extra wait (tickets precede the answer).
func (o *Options) loadExchange(host string) loadgen.Exchange {
	switch o.Request {
	case RequestPing:
		return loadgen.PingPong
	case RequestLine:
		return loadgen.LineExchange
	}
	return func(tc *tls.Conn) error {
		if o.Request == RequestNone {
			drain(tc, o.TicketWait)
			return nil
		}
		return o.request(tc, host).Err
	}
}

// request writes the request and reads the answer's first line (HTTP/1),
// frame (HTTP/2) or byte (ping).
func (o *Options) request(tc *tls.Conn, host string) answer {
	switch o.Request {
	case RequestNone:
		return answer{}
	case RequestPing:
		if _, err := tc.Write([]byte{'p'}); err != nil {
			return answer{Err: err}
		}
		var b [1]byte
		if _, err := io.ReadFull(tc, b[:]); err != nil {
			return answer{Err: noAnswer(err)}
		}
		if b[0] != 'p' {
			return answer{First: fmt.Sprintf("%q", b[0]), Err: fmt.Errorf("ping answered with %q, not echoed", b[0])}
		}
		return answer{First: "echo"}
	case RequestLine:
		if _, err := io.WriteString(tc, "tlsbench\n"); err != nil {
			return answer{Err: err}
		}
		var line []byte
		var b [1]byte
		for len(line) < maxHeaderBytes {
			if _, err := io.ReadFull(tc, b[:]); err != nil {
				return answer{First: firstLine(line), Err: noAnswer(err)}
			}
			if b[0] == '\n' {
				break
			}
			line = append(line, b[0])
		}
		return answer{First: firstLine(line)}
	}
	if tc.ConnectionState().NegotiatedProtocol == "h2" {
		if _, err := tc.Write(h2Preface); err != nil {
			return answer{Err: err}
		}
		var hdr [9]byte
		if _, err := io.ReadFull(tc, hdr[:]); err != nil {
			return answer{Err: noAnswer(err)}
		}
		return answer{First: fmt.Sprintf("HTTP/2 %s frame", h2FrameName(hdr[3]))}
	}
	method := "HEAD"
	if o.Request == RequestHTTPGet {
		method = "GET"
	}
	req := fmt.Sprintf("%s / HTTP/1.1\r\nHost: %s\r\nUser-Agent: tlsbench-probe\r\nConnection: close\r\n\r\n", method, host)
	if _, err := io.WriteString(tc, req); err != nil {
		return answer{Err: err}
	}
	buf := make([]byte, 0, 4096)
	tmp := make([]byte, 4096)
	for !bytes.Contains(buf, []byte("\r\n\r\n")) && len(buf) < maxHeaderBytes {
		n, err := tc.Read(tmp)
		buf = append(buf, tmp[:n]...)
		if err != nil {
			if len(buf) > 0 && errors.Is(err, io.EOF) {
				break
			}
			return answer{First: firstLine(buf), Err: noAnswer(err)}
		}
	}
	return answer{First: firstLine(buf)}
}

func noAnswer(err error) error {
	if errors.Is(err, io.EOF) {
		return errors.New("the server closed the connection without answering")
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return errors.New("no answer before the connection timeout")
	}
	return err
}

// drain reads and discards until the server closes, wait passes without
// data, 10 waits pass in all, or maxDrainBytes were read.
func drain(tc *tls.Conn, wait time.Duration) {
	buf := make([]byte, 16<<10)
	total := 0
	end := time.Now().Add(10 * wait)
	for total < maxDrainBytes {
		dl := time.Now().Add(wait)
		if dl.After(end) {
			dl = end
		}
		tc.SetReadDeadline(dl)
		n, err := tc.Read(buf)
		total += n
		if err != nil {
			return
		}
	}
}

func firstLine(b []byte) string {
	if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
		b = b[:i]
	}
	if len(b) > 120 {
		b = b[:120]
	}
	return string(bytes.ToValidUTF8(b, []byte("?")))
}

func h2FrameName(t byte) string {
	names := []string{"DATA", "HEADERS", "PRIORITY", "RST_STREAM", "SETTINGS", "PUSH_PROMISE", "PING", "GOAWAY", "WINDOW_UPDATE", "CONTINUATION"}
	if int(t) < len(names) {
		return names[t]
	}
	return fmt.Sprintf("type-%d", t)
}

// hostHeader is the Host of the HTTP request: the server name, or the
// address when the server name is an IP address.
func hostHeader(o *Options) string {
	if net.ParseIP(o.ServerName) != nil {
		return o.Addr
	}
	return o.ServerName
}
