package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/tlsbench/tlsbench/bulk"
	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/ktls"
)

// The request forms of a throughput case (ThroughputCase.Request).
const (
	// ThroughputRequestBulk is tlsbench's binary protocol (package bulk):
	// setup, kTLS on both ends, rounds with verdicts. The default.
	ThroughputRequestBulk = "bulk"
	// ThroughputRequestHTTP moves the same stream as HTTP/1.1 requests
	// (bulk.HTTPBulkPath), so that a proxy that terminates TLS and parses
	// HTTP (Squid bumping) carries it: a download is a GET whose body must
	// be the stream, byte for byte, with Content-Length equal to what was
	// asked; an upload a POST the server checks and answers 200. One
	// direction per request, in user-space TLS on the client.
	ThroughputRequestHTTP = "http"
)

// isHTTP says the case uses the HTTP request form.
func (tc *ThroughputCase) isHTTP() bool { return tc.Request == ThroughputRequestHTTP }

// validateRequest checks the request form against the rest of the case.
func (tc *ThroughputCase) validateRequest() error {
	switch tc.Request {
	case "", ThroughputRequestBulk:
		return nil
	case ThroughputRequestHTTP:
	default:
		return field.Errorf("Request", tc.Request, "want %s or %s", ThroughputRequestBulk, ThroughputRequestHTTP)
	}
	if tc.Direction == DirectionBoth {
		return field.Errorf("Direction", tc.Direction, "the HTTP request form moves one direction per request: use download or upload")
	}
	if tc.KTLS == ktls.ModeOn {
		return field.Errorf("KTLS", tc.KTLS.String(), "the HTTP request form runs in user-space TLS: use off or auto")
	}
	return nil
}

// httpNote is the note of an HTTP case that asked for kTLS where it can.
const httpNote = "user-space TLS: the HTTP request form does not switch to kernel TLS"

// httpHost is the Host header of the case's requests: the server name at
// the port the dialer reaches (a proxy's target, or the server itself).
func (r *tpRunner) httpHost() string {
	var target string
	switch d := r.tc.Dialer.(type) {
	case client.ProxyDialer:
		target = d.Target
	case *client.ProxyDialer:
		target = d.Target
	case client.TCPDialer:
		target = d.Addr
	}
	host, port, err := net.SplitHostPort(target)
	if r.cfg.ServerName != "" {
		host = r.cfg.ServerName
	}
	if err != nil || port == "" {
		if host == "" {
			return "localhost"
		}
		return host
	}
	return net.JoinHostPort(host, port)
}

// openedHTTP finishes opening a connection of the HTTP form: nothing is
// exchanged before the first request.
func (r *tpRunner) openedHTTP(c *tpConn) *tpConn {
	c.hr = bulk.NewHTTPReader(c.conn, nil)
	c.raw.SetDeadline(time.Time{})
	c.buf = make([]byte, r.tc.Buffer)
	return c
}

// roundHTTP moves n bytes in the case's direction as one request (a file
// source: one GET per pass).
func (r *tpRunner) roundHTTP(ctx context.Context, c *tpConn, n int64) error {
	c.rounds++
	if r.tc.Direction == DirectionUpload {
		return r.uploadHTTP(ctx, c, n, phase(c.id, c.rounds, 1))
	}
	if r.tc.Source == nil {
		p := phase(c.id, c.rounds, 0)
		return r.downloadHTTP(ctx, c, bulk.DownloadRequest(r.host, n, p, r.tc.Buffer), n, bulk.NewPatternVerifier(p))
	}
	for pass := int64(0); pass < n/r.srcSize; pass++ {
		// Each answer is one pass from the file's first byte.
		var v bulk.Verifier
		if r.srcContent != nil {
			v = bulk.NewContentVerifier(r.srcContent)
		} else {
			v = bulk.NewPassHashVerifier(r.srcSize, r.srcSum)
		}
		if err := r.downloadHTTP(ctx, c, bulk.SourceRequest(r.host, r.tc.Source.Index, r.tc.Buffer), r.srcSize, v); err != nil {
			return err
		}
	}
	return nil
}

// downloadHTTP sends a GET and checks that the answer's body is the n
// bytes v expects.
func (r *tpRunner) downloadHTTP(ctx context.Context, c *tpConn, req []byte, n int64, v bulk.Verifier) error {
	c.raw.SetDeadline(time.Now().Add(r.tc.ConnTimeout))
	if _, err := c.conn.Write(req); err != nil {
		return fmt.Errorf("download request: %w", err)
	}
	resp, err := r.readAnswer(c)
	if err != nil {
		return fmt.Errorf("download: %w", err)
	}
	switch {
	case resp.Status != 200:
		return fmt.Errorf("download: %s", r.answerError(resp))
	case resp.Chunked || resp.ContentLength != n:
		if r.tc.Source != nil && !resp.Chunked {
			return &field.Error{Field: "Source.Path", Value: r.tc.Source.Path,
				Reason: fmt.Sprintf("the server's file has %d bytes, the client's %d: not the same file", resp.ContentLength, r.srcSize)}
		}
		return fmt.Errorf("download: the answer's length is %s, want Content-Length %d (did a proxy re-encode it?)", lengthOf(resp), n)
	}
	g := &bulk.StallGuard{Conn: c.raw, Timeout: r.tc.ConnTimeout, Ctx: ctx}
	if _, err := bulk.Receive(c.hr, n, c.buf, v, false, g); err != nil {
		c.raw.SetDeadline(time.Now())
		return fmt.Errorf("download: %w", err)
	}
	if !resp.KeepAlive {
		return errors.New("download: the server (or a proxy) closes the connection after each answer: every request would need a new handshake")
	}
	return nil
}

// uploadHTTP sends a POST of n bytes of the stream from phase p and
// requires the server's 200.
func (r *tpRunner) uploadHTTP(ctx context.Context, c *tpConn, n, p int64) error {
	c.raw.SetDeadline(time.Now().Add(r.tc.ConnTimeout))
	if _, err := c.conn.Write(bulk.UploadRequest(r.host, n, p, r.tc.Buffer)); err != nil {
		return fmt.Errorf("upload request: %w", err)
	}
	g := &bulk.StallGuard{Conn: c.raw, Timeout: r.tc.ConnTimeout, Ctx: ctx}
	if err := bulk.SendPattern(c.conn, n, p, r.tc.Buffer, g); err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	c.raw.SetDeadline(time.Now().Add(r.tc.ConnTimeout))
	resp, err := r.readAnswer(c)
	if err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	// The answer's body is short (the byte count, or the reason): read it
	// so that the next answer starts where it should.
	if resp.Chunked || resp.ContentLength < 0 || resp.ContentLength > maxAnswerBody {
		return fmt.Errorf("upload: answered %d with a body of length %s, want a short Content-Length", resp.Status, lengthOf(resp))
	}
	if _, err := io.CopyN(io.Discard, c.hr, resp.ContentLength); err != nil {
		return fmt.Errorf("upload: reading the answer: %w", err)
	}
	switch {
	case resp.Status == 422:
		return fmt.Errorf("upload: %w", &bulk.IntegrityError{Remote: resp.Error})
	case resp.Status != 200:
		return fmt.Errorf("upload: %s", r.answerError(resp))
	case !resp.KeepAlive:
		return errors.New("upload: the server (or a proxy) closes the connection after each answer: every request would need a new handshake")
	}
	return nil
}

// maxAnswerBody bounds the body of an upload's answer.
const maxAnswerBody = 64 << 10

// readAnswer reads and parses a response head.
func (r *tpRunner) readAnswer(c *tpConn) (bulk.HTTPResponse, error) {
	head, err := c.hr.ReadHead()
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = fmt.Errorf("the connection ended before an answer: %w", io.ErrUnexpectedEOF)
		}
		return bulk.HTTPResponse{}, err
	}
	return bulk.ParseHTTPResponse(head)
}

// answerError describes an answer other than 200, with the reason the
// server or a proxy gave.
func (r *tpRunner) answerError(resp bulk.HTTPResponse) string {
	msg := fmt.Sprintf("answered %d %s", resp.Status, resp.Reason)
	if resp.Error != "" {
		msg += ": " + resp.Error
	}
	if resp.Status == 404 || resp.Status == 405 {
		msg += " (is the server tlsbench's built-in server, which answers the HTTP request form?)"
	}
	return msg
}

func lengthOf(resp bulk.HTTPResponse) string {
	switch {
	case resp.Chunked:
		return "chunked"
	case resp.ContentLength < 0:
		return "not given"
	}
	return fmt.Sprint(resp.ContentLength)
}

// throughProxy adds to a failed setup of the binary protocol through a
// proxy what is most likely wrong: a proxy that terminates TLS (Squid
// bumping) parses HTTP and waits for a request line it never gets.
func (r *tpRunner) throughProxy(err error) error {
	switch r.tc.Dialer.(type) {
	case client.ProxyDialer, *client.ProxyDialer:
		return fmt.Errorf("%w (through a proxy that terminates TLS, which expects HTTP, use %s %s)", err, r.tc.Words.Name("Request"), ThroughputRequestHTTP)
	}
	return err
}
