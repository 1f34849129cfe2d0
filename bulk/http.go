package bulk

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The HTTP form of the transfer, for paths through a proxy that
// terminates TLS and parses HTTP (Squid bumping): the proxy carries
// requests and answers, not the binary protocol above. One request moves
// one direction:
//
//	GET  /tlsbench/bulk?bytes=N&phase=P[&buffer=B]  -> 200, Content-Length N,
//	                                                   the stream from phase P
//	POST /tlsbench/bulk?phase=P[&buffer=B]          -> the server checks the N
//	     Content-Length: N, the stream from phase P    bytes: 200, or 422 with
//	                                                   the reason in X-Tlsbench-Error
//	GET  /tlsbench/source/I[?buffer=B]              -> 200, the I-th file the
//	                                                   server was started with
//
// B is the server's read/write size (default DefaultHTTPBuffer). Connections
// are kept alive between requests (HTTP/1.1). Every head is read up to
// MaxHTTPHead bytes; bodies are sized by Content-Length only (no chunked
// transfer coding), at most MaxHTTPBody.
const (
	// HTTPBulkPath and HTTPSourcePath are the paths of the transfer.
	HTTPBulkPath   = "/tlsbench/bulk"
	HTTPSourcePath = "/tlsbench/source/"
	// HTTPPrefix starts every path of the HTTP form.
	HTTPPrefix = "/tlsbench/"
	// MaxHTTPHead caps a request's or a response's head.
	MaxHTTPHead = 8 << 10
	// MaxHTTPBody caps what one request moves.
	MaxHTTPBody int64 = 1 << 40
	// DefaultHTTPBuffer is the server's read/write size when the request
	// names none.
	DefaultHTTPBuffer = 16 << 10
	// HTTPErrorHeader carries the server's reason for a refusal or a
	// failed check.
	HTTPErrorHeader = "X-Tlsbench-Error"
)

// Kinds of request.
const (
	// HTTPOther is any request outside HTTPPrefix: not a transfer.
	HTTPOther = iota
	HTTPDownload
	HTTPUpload
	HTTPSource
)

// HTTPRequest is a parsed request head.
type HTTPRequest struct {
	Kind   int
	Method string
	Target string
	// Bytes is what a download asks for, or an upload's Content-Length.
	Bytes int64
	Phase int64
	// Source is the 1-based file index of HTTPSource.
	Source int
	// Buffer is the server's read/write size (DefaultHTTPBuffer if unset).
	Buffer int
	// KeepAlive says the client keeps the connection for another request.
	KeepAlive bool
}

// HTTPError is a request the server refuses, with the status to answer.
type HTTPError struct {
	Status int
	Reason string
}

func (e *HTTPError) Error() string { return fmt.Sprintf("%d %s", e.Status, e.Reason) }

func httpErr(status int, format string, args ...any) error {
	return &HTTPError{Status: status, Reason: fmt.Sprintf(format, args...)}
}

// DownloadRequest is the head of a GET of n bytes of the stream from
// phase, written in buffer-byte writes (0: the server's default).
func DownloadRequest(host string, n, phase int64, buffer int) []byte {
	return requestHead("GET", fmt.Sprintf("%s?bytes=%d&phase=%d%s", HTTPBulkPath, n, phase, bufferParam(buffer, "&")), host, -1)
}

// UploadRequest is the head of a POST of n bytes of the stream from phase;
// the body follows it.
func UploadRequest(host string, n, phase int64, buffer int) []byte {
	return requestHead("POST", fmt.Sprintf("%s?phase=%d%s", HTTPBulkPath, phase, bufferParam(buffer, "&")), host, n)
}

// SourceRequest is the head of a GET of file source index (1-based).
func SourceRequest(host string, index, buffer int) []byte {
	return requestHead("GET", fmt.Sprintf("%s%d%s", HTTPSourcePath, index, bufferParam(buffer, "?")), host, -1)
}

func bufferParam(buffer int, sep string) string {
	if buffer <= 0 {
		return ""
	}
	return sep + "buffer=" + strconv.Itoa(buffer)
}

func requestHead(method, target, host string, contentLength int64) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: tlsbench\r\n", method, target, host)
	if contentLength >= 0 {
		fmt.Fprintf(&b, "Content-Type: application/octet-stream\r\nContent-Length: %d\r\n", contentLength)
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

// headLines splits a head into its lines, without the blank line that
// ends it; bare LF line ends are accepted as CRLF.
func headLines(head []byte) []string {
	s := strings.TrimRight(string(head), "\r\n")
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	return lines
}

// ParseHTTPRequest parses a request head (up to and including its blank
// line). Requests outside HTTPPrefix come back as HTTPOther with their
// method and target only, for the server's minimal answer. Errors are
// *HTTPError with the status to answer.
func ParseHTTPRequest(head []byte) (HTTPRequest, error) {
	if len(head) > MaxHTTPHead {
		return HTTPRequest{}, httpErr(431, "request head over %d bytes", MaxHTTPHead)
	}
	lines := headLines(head)
	f := strings.Split(lines[0], " ")
	if len(f) != 3 || f[0] == "" || f[1] == "" || (f[2] != "HTTP/1.1" && f[2] != "HTTP/1.0") {
		return HTTPRequest{}, httpErr(400, "malformed request line")
	}
	req := HTTPRequest{Method: f[0], Target: f[1], Buffer: DefaultHTTPBuffer, KeepAlive: f[2] == "HTTP/1.1"}
	if !strings.HasPrefix(req.Target, HTTPPrefix) {
		return req, nil
	}
	h, err := parseHeaders(lines[1:])
	if err != nil {
		return req, err
	}
	if h.close {
		req.KeepAlive = false
	} else if h.keepAlive {
		req.KeepAlive = true
	}
	path, query, _ := strings.Cut(req.Target, "?")
	params, err := parseQuery(query)
	if err != nil {
		return req, err
	}
	if b, ok := params["buffer"]; ok {
		if b < 1 || b > MaxBuffer {
			return req, httpErr(400, "buffer=%d: must be 1..%d", b, MaxBuffer)
		}
		req.Buffer = int(b)
	}
	req.Phase = params["phase"]
	if h.chunked {
		return req, httpErr(411, "chunked bodies are not accepted: send Content-Length")
	}
	return req, classify(&req, path, params, h.contentLength)
}

// classify sets the request's kind from its method and path.
func classify(req *HTTPRequest, path string, params map[string]int64, contentLength int64) error {
	switch {
	case path == HTTPBulkPath && req.Method == "GET":
		req.Kind = HTTPDownload
		n, ok := params["bytes"]
		if !ok || n < 1 || n > MaxHTTPBody {
			return httpErr(400, "bytes=N: want 1..%d", MaxHTTPBody)
		}
		if contentLength > 0 {
			return httpErr(400, "a download has no body")
		}
		req.Bytes = n
	case path == HTTPBulkPath && req.Method == "POST":
		req.Kind = HTTPUpload
		switch {
		case contentLength < 0:
			return httpErr(411, "an upload needs Content-Length")
		case contentLength < 1 || contentLength > MaxHTTPBody:
			return httpErr(413, "upload of %d bytes: want 1..%d", contentLength, MaxHTTPBody)
		}
		req.Bytes = contentLength
	case path == HTTPBulkPath:
		return httpErr(405, "%s: only GET and POST", clipHTTP(req.Method))
	case strings.HasPrefix(path, HTTPSourcePath) && req.Method == "GET":
		req.Kind = HTTPSource
		i, err := strconv.Atoi(path[len(HTTPSourcePath):])
		if err != nil || i < 1 || i > 1<<16 || !digits(path[len(HTTPSourcePath):]) {
			return httpErr(404, "no file source %q", clipHTTP(path[len(HTTPSourcePath):]))
		}
		if contentLength > 0 {
			return httpErr(400, "a download has no body")
		}
		req.Source = i
	case strings.HasPrefix(path, HTTPSourcePath):
		return httpErr(405, "%s: only GET", clipHTTP(req.Method))
	default:
		return httpErr(404, "no such path %q", clipHTTP(path))
	}
	return nil
}

// httpHeaders are the headers the transfer looks at.
type httpHeaders struct {
	contentLength int64 // -1: absent
	chunked       bool
	close         bool
	keepAlive     bool
	errorReason   string
}

func parseHeaders(lines []string) (httpHeaders, error) {
	h := httpHeaders{contentLength: -1}
	for _, line := range lines {
		if line == "" {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			return h, httpErr(400, "folded header line")
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return h, httpErr(400, "malformed header line")
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(name) {
		case "content-length":
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil || n < 0 || !digits(value) || (h.contentLength >= 0 && h.contentLength != n) {
				return h, httpErr(400, "bad Content-Length")
			}
			h.contentLength = n
		case "transfer-encoding":
			h.chunked = true // any coding: the length is no longer Content-Length
		case "connection":
			for _, tok := range strings.Split(value, ",") {
				switch strings.ToLower(strings.TrimSpace(tok)) {
				case "close":
					h.close = true
				case "keep-alive":
					h.keepAlive = true
				}
			}
		case "x-tlsbench-error", "x-squid-error":
			if value != "" {
				h.errorReason = value
			}
		}
	}
	return h, nil
}

// parseQuery reads name=digits pairs; names other than bytes, phase and
// buffer are ignored, a repeated or non-numeric one refused.
func parseQuery(q string) (map[string]int64, error) {
	params := map[string]int64{}
	if q == "" {
		return params, nil
	}
	for _, kv := range strings.Split(q, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if k != "bytes" && k != "phase" && k != "buffer" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || !digits(v) {
			return nil, httpErr(400, "%s=%q: not a number", k, clipHTTP(v))
		}
		if _, dup := params[k]; dup {
			return nil, httpErr(400, "%s given twice", k)
		}
		params[k] = n
	}
	return params, nil
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// clipHTTP quotes at most 64 bytes of what a peer sent, printable ASCII
// only, for a reason that goes back in a header.
func clipHTTP(s string) string { return printable(s, 64, '?') }

// printable keeps at most n bytes of s, each byte outside printable
// ASCII replaced by repl: one line that is safe in a header or a log.
func printable(s string, n int, repl byte) string {
	b := []byte(s)
	if len(b) > n {
		b = b[:n]
	}
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = repl
		}
	}
	return string(b)
}

// HTTPResponse is a parsed response head.
type HTTPResponse struct {
	Status int
	Reason string // the status line's reason phrase
	// ContentLength is -1 when absent.
	ContentLength int64
	// Chunked: a transfer coding replaces Content-Length.
	Chunked   bool
	KeepAlive bool
	// Error is the X-Tlsbench-Error (tlsbench's server and proxy) or
	// X-Squid-Error header.
	Error string
}

// ParseHTTPResponse parses a response head (up to and including its
// blank line).
func ParseHTTPResponse(head []byte) (HTTPResponse, error) {
	if len(head) > MaxHTTPHead {
		return HTTPResponse{}, fmt.Errorf("bulk: response head over %d bytes", MaxHTTPHead)
	}
	lines := headLines(head)
	proto, rest, _ := strings.Cut(lines[0], " ")
	code, phrase, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(code)
	if (proto != "HTTP/1.1" && proto != "HTTP/1.0") || len(code) != 3 || err != nil || status < 100 || !digits(code) {
		return HTTPResponse{}, fmt.Errorf("bulk: not an HTTP/1.x response: %q", clipHTTP(lines[0]))
	}
	h, err := parseHeaders(lines[1:])
	if err != nil {
		return HTTPResponse{}, fmt.Errorf("bulk: response: %w", err)
	}
	r := HTTPResponse{Status: status, Reason: clipHTTP(phrase), ContentLength: h.contentLength, Chunked: h.chunked,
		KeepAlive: proto == "HTTP/1.1", Error: clipHTTP(h.errorReason)}
	if h.close {
		r.KeepAlive = false
	} else if h.keepAlive {
		r.KeepAlive = true
	}
	return r, nil
}

// ResponseHead is the head of an answer with a body of contentLength
// bytes; reason, when set, goes in HTTPErrorHeader.
func ResponseHead(status int, contentLength int64, keepAlive bool, reason string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, statusText(status))
	if reason != "" {
		fmt.Fprintf(&b, "%s: %s\r\n", HTTPErrorHeader, clipReason(reason))
	}
	typ := "application/octet-stream"
	if status != 200 {
		typ = "text/plain; charset=utf-8"
	}
	fmt.Fprintf(&b, "Content-Type: %s\r\nContent-Length: %d\r\nCache-Control: no-store\r\n", typ, contentLength)
	if !keepAlive {
		b.WriteString("Connection: close\r\n")
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

// clipReason keeps a reason to one printable line of at most 512 bytes.
func clipReason(s string) string { return printable(s, 512, ' ') }

func statusText(code int) string {
	switch code {
	case 200:
		return "OK"
	case 400:
		return "Bad Request"
	case 404:
		return "Not Found"
	case 405:
		return "Method Not Allowed"
	case 411:
		return "Length Required"
	case 413:
		return "Content Too Large"
	case 422:
		return "Unprocessable Content"
	case 431:
		return "Request Header Fields Too Large"
	case 500:
		return "Internal Server Error"
	}
	return "Status"
}

// ErrHTTPHeadTooLong: no end of the head within MaxHTTPHead bytes.
var ErrHTTPHeadTooLong = fmt.Errorf("bulk: no end of the HTTP head within %d bytes", MaxHTTPHead)

// HTTPReader reads HTTP/1.1 messages from a connection: heads, capped,
// and bodies, through Read. Bytes that arrive with a head and belong to
// what follows it are kept for the next Read or ReadHead, so that nothing
// is lost whatever way a peer splits its writes.
type HTTPReader struct {
	r       io.Reader
	pending []byte
	// scanned is how much of pending is known to hold no head end, so
	// that a head trickled a byte per read is searched once, not once
	// per read.
	scanned int
}

// NewHTTPReader reads from r, starting with first (bytes already read).
func NewHTTPReader(r io.Reader, first []byte) *HTTPReader {
	return &HTTPReader{r: r, pending: append([]byte(nil), first...)}
}

// ReadHead reads the next head, up to and including its blank line (CRLF
// CRLF, or LF LF), at most MaxHTTPHead bytes: more is
// ErrHTTPHeadTooLong. It never reads from the connection once it holds
// MaxHTTPHead bytes. A connection that ends before the first byte of a
// head returns io.EOF; one that ends inside it io.ErrUnexpectedEOF.
func (h *HTTPReader) ReadHead() ([]byte, error) {
	for {
		// Only the first MaxHTTPHead bytes may hold the head, however
		// many arrived with the first record.
		window := h.pending[:min(len(h.pending), MaxHTTPHead)]
		// Back up 3 bytes: a blank line may straddle two reads.
		from := max(0, h.scanned-3)
		if end := headEnd(window[from:]); end > 0 {
			end += from
			head := h.pending[:end:end]
			h.pending = h.pending[end:]
			h.scanned = 0
			return head, nil
		}
		h.scanned = len(window)
		if len(h.pending) >= MaxHTTPHead {
			return nil, ErrHTTPHeadTooLong
		}
		if cap(h.pending)-len(h.pending) < 1024 && cap(h.pending) < MaxHTTPHead {
			grown := make([]byte, len(h.pending), min(MaxHTTPHead, 2*cap(h.pending)+2048))
			copy(grown, h.pending)
			h.pending = grown
		}
		n, err := h.r.Read(h.pending[len(h.pending):min(cap(h.pending), MaxHTTPHead)])
		h.pending = h.pending[:len(h.pending)+n]
		if err != nil && headEnd(h.pending[max(0, h.scanned-3):min(len(h.pending), MaxHTTPHead)]) < 0 {
			if errors.Is(err, io.EOF) && len(h.pending) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// headEnd is the length of the head at the start of b (through its blank
// line), or -1 when b holds no complete head.
func headEnd(b []byte) int {
	end := -1
	if i := bytes.Index(b, []byte("\r\n\r\n")); i >= 0 {
		end = i + 4
	}
	if i := bytes.Index(b, []byte("\n\n")); i >= 0 && (end < 0 || i+2 < end) {
		end = i + 2
	}
	return end
}

// Read reads what follows the last head: kept bytes first.
func (h *HTTPReader) Read(p []byte) (int, error) {
	if len(h.pending) > 0 {
		n := copy(p, h.pending)
		h.pending = h.pending[n:]
		h.scanned = 0
		return n, nil
	}
	return h.r.Read(p)
}

// Buffered is the number of kept bytes not yet read.
func (h *HTTPReader) Buffered() int { return len(h.pending) }
