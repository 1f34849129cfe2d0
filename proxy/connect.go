package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/internal/hostname"
)

// MaxHead bounds a CONNECT request head: request line and headers.
const MaxHead = 8 << 10

// request is a parsed CONNECT request.
type request struct {
	host string // without brackets
	port int
	// early are bytes the client sent after the head, before our answer
	// (a client that does not wait for the 200): its TLS starts there.
	early []byte
}

// refusal is a request the proxy answers with an error status.
type refusal struct {
	status int
	reason string // the counter's key (Refused*)
	detail string // one line for the answer's header and the log
	allow  string // the Allow header of a 405
}

func (r *refusal) Error() string { return r.detail }

// errHeadTooLong and errNoHead are what readHead finds in place of a
// request head.
var (
	errHeadTooLong = errors.New("request head longer than 8 KiB")
)

// readHead reads up to the end of the request head ("\r\n\r\n", or
// "\n\n" from sloppy clients) into buf, which is MaxHead long, and
// returns the head and the bytes read after it.
func readHead(c io.Reader, buf []byte) (head, rest []byte, err error) {
	n := 0
	for {
		if n == len(buf) {
			return nil, nil, errHeadTooLong
		}
		m, err := c.Read(buf[n:])
		// Search from a little before the new bytes: the terminator
		// may straddle two reads.
		from := max(0, n-3)
		n += m
		if i := bytes.Index(buf[from:n], []byte("\r\n\r\n")); i >= 0 {
			end := from + i + 4
			return buf[:end], buf[end:n], nil
		}
		if i := bytes.Index(buf[from:n], []byte("\n\n")); i >= 0 {
			end := from + i + 2
			return buf[:end], buf[end:n], nil
		}
		if err != nil {
			if err == io.EOF && n > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, nil, err
		}
	}
}

// parseConnect reads a request head: CONNECT host:port HTTP/1.x with a
// port in ports, or a refusal saying why not.
func parseConnect(head []byte, ports []int) (request, *refusal) {
	line, _, _ := bytes.Cut(head, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	parts := strings.Split(string(line), " ")
	if len(parts) != 3 || !strings.HasPrefix(parts[2], "HTTP/1.") || len(parts[2]) != len("HTTP/1.1") || !isToken(parts[0]) {
		return request{}, &refusal{status: 400, reason: RefusedMalformed, detail: "not an HTTP/1.x request line"}
	}
	if parts[0] != "CONNECT" {
		return request{}, &refusal{status: 405, reason: RefusedMethod, allow: "CONNECT",
			detail: "only CONNECT is served: this proxy relays TLS, it does not fetch " + clip(parts[0]) + " requests"}
	}
	host, portStr, err := net.SplitHostPort(parts[1])
	port, ok := parsePort(portStr)
	if err != nil || !ok || !validHost(host) {
		return request{}, &refusal{status: 400, reason: RefusedHostName, detail: "CONNECT needs host:port, got " + strconv.Quote(clip(parts[1]))}
	}
	if r := checkHeaders(head); r != nil {
		return request{}, r
	}
	if !slices.Contains(ports, port) {
		return request{}, &refusal{status: 403, reason: RefusedPort, detail: fmt.Sprintf("port %d is not allowed; allowed: %s", port, joinPorts(ports))}
	}
	return request{host: host, port: port}, nil
}

// parsePort reads a port as a URL writes it: decimal digits only, no
// sign, no leading zero. strconv.Atoi alone would take "+443" and
// "0443", which other proxies and origins may read differently.
func parsePort(s string) (int, bool) {
	if s == "" || len(s) > 5 || s[0] == '0' {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, n <= 65535
}

// checkHeaders refuses a head with a header line that is no "name:
// value": the proxy ignores the headers, but a line it cannot read is a
// request that something else may read differently (a folded line, a
// smuggled request line).
func checkHeaders(head []byte) *refusal {
	_, rest, _ := bytes.Cut(head, []byte("\n"))
	for _, line := range bytes.Split(rest, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			continue // the empty line that ends the head
		}
		name, _, ok := bytes.Cut(line, []byte(":"))
		if !ok || !isToken(string(name)) {
			return &refusal{status: 400, reason: RefusedMalformed, detail: "header line without a name and a colon: " + strconv.Quote(clip(string(line)))}
		}
	}
	return nil
}

// isToken reports whether s is an HTTP method token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>@,;:\\\"/[]?={}", c) >= 0 {
			return false
		}
	}
	return true
}

// validHost accepts what hostname.Check does, the check of host names
// every flag makes: an IP address or a DNS name of labels of 1 to 63
// letters, digits, hyphens and underscores, what a certificate can be
// minted for.
func validHost(h string) bool { return hostname.Check(h, hostname.Host) == nil }

func joinPorts(ports []int) string {
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ", ")
}

// statusText are the reason phrases the proxy sends.
var statusText = map[int]string{
	200: "Connection established",
	400: "Bad Request",
	403: "Forbidden",
	405: "Method Not Allowed",
	502: "Bad Gateway",
	503: "Service Unavailable",
}

// ErrorHeader carries the one-line reason of an error answer.
const ErrorHeader = "X-Tlsbench-Error"

// answer writes an error answer: the status, the reason in ErrorHeader
// and in the body, and Connection: close.
func answer(w io.Writer, r *refusal) error {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", r.status, statusText[r.status])
	detail := oneLine(r.detail)
	fmt.Fprintf(&b, "%s: %s\r\n", ErrorHeader, detail)
	if r.allow != "" {
		fmt.Fprintf(&b, "Allow: %s\r\n", r.allow)
	}
	fmt.Fprintf(&b, "Content-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n", len(detail)+1, detail)
	_, err := io.WriteString(w, b.String())
	return err
}

// established is the answer that starts the tunnel.
const established = "HTTP/1.1 200 Connection established\r\n\r\n"

// oneLine makes s safe for a header: no control characters, bounded.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	return clip(s)
}
