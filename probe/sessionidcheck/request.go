package sessionidcheck

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/tlsbench/tlsbench/client"
)

// h2Preface is the HTTP/2 client connection preface and an empty
// SETTINGS frame (RFC 9113, section 3.4), after which an HTTP/2 server
// sends its own SETTINGS frame.
var h2Preface = []byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")

// maxResumedAnswer bounds what the answer on a resumed connection may
// take before its first line or head ends.
const maxResumedAnswer = 64 << 10

// Send sends request r on a TLS 1.2 connection resumed by session ID
// and reads the start of the answer, with the bytes client's
// Request.Send writes on a *tls.Conn (which it needs), so that every
// probe connection asks the server the same thing. alpn is the
// connection's protocol (h2 gets the HTTP/2 preface), host the Host of
// an HTTP request. It returns the answer's first line, or a description
// for a ping and HTTP/2. TLS 1.2 sends no ticket after the handshake, so
// wait and none have nothing to read.
func Send(c net.Conn, r client.Request, alpn, host string) (string, error) {
	switch r {
	case client.RequestNone, client.RequestWait:
		return "", nil
	case client.RequestPing:
		if _, err := c.Write([]byte{'p'}); err != nil {
			return "", err
		}
		var b [1]byte
		if _, err := io.ReadFull(c, b[:]); err != nil {
			return "", err
		}
		if b[0] != 'p' {
			return fmt.Sprintf("%q", b[0]), fmt.Errorf("the ping was answered with %q, not echoed", b[0])
		}
		return "echo", nil
	case client.RequestLine:
		if _, err := io.WriteString(c, "tlsbench\n"); err != nil {
			return "", err
		}
		return readUntil(c, []byte("\n"))
	case client.RequestHTTP, client.RequestHTTPGet:
		if alpn == "h2" {
			return sendH2Preface(c)
		}
		method := "HEAD"
		if r == client.RequestHTTPGet {
			method = "GET"
		}
		req := method + " / HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: tlsbench\r\nConnection: close\r\n\r\n"
		if _, err := io.WriteString(c, req); err != nil {
			return "", err
		}
		return readUntil(c, []byte("\r\n\r\n"))
	}
	return "", fmt.Errorf("request %q cannot be sent", r)
}

// readUntil reads until end, the end of the stream after some data, or
// maxResumedAnswer bytes, and returns the first line.
func readUntil(c net.Conn, end []byte) (string, error) {
	var buf []byte
	tmp := make([]byte, 4096)
	for !bytes.Contains(buf, end) && len(buf) < maxResumedAnswer {
		n, err := c.Read(tmp)
		buf = append(buf, tmp[:n]...)
		if err != nil {
			if len(buf) > 0 && errors.Is(err, io.EOF) {
				break
			}
			return reportLine(buf), err
		}
	}
	return reportLine(buf), nil
}

func sendH2Preface(c net.Conn) (string, error) {
	if _, err := c.Write(h2Preface); err != nil {
		return "", err
	}
	var hdr [9]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return "", err
	}
	names := []string{"DATA", "HEADERS", "PRIORITY", "RST_STREAM", "SETTINGS", "PUSH_PROMISE", "PING", "GOAWAY", "WINDOW_UPDATE", "CONTINUATION"}
	name := fmt.Sprintf("type-%d", hdr[3])
	if int(hdr[3]) < len(names) {
		name = names[hdr[3]]
	}
	return "HTTP/2 " + name + " frame", nil
}

// reportLine is the first line of b, cut to 120 bytes of valid UTF-8.
func reportLine(b []byte) string {
	if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
		b = b[:i]
	}
	if len(b) > 120 {
		b = b[:120]
	}
	return string(bytes.ToValidUTF8(b, []byte("?")))
}
