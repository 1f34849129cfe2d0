package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/tlsbench/tlsbench/bulk"
)

// serveBulkHTTP answers one request of the HTTP form of the throughput
// transfer (see bulk.HTTPBulkPath), whose head has been read from hr; it
// reports whether the connection stays open for another request. The
// transfers run in user-space TLS: the HTTP form is for paths through a
// proxy that terminates TLS, where the kernel would not see the proxy's
// leg anyway.
func (s *Server) serveBulkHTTP(ctx context.Context, conn net.Conn, hr *bulk.HTTPReader, head []byte) bool {
	req, err := bulk.ParseHTTPRequest(head)
	var he *bulk.HTTPError
	switch {
	case errors.As(err, &he):
		s.refuseHTTP(conn, he.Status, he.Reason)
		return false
	case err != nil:
		s.refuseHTTP(conn, 400, err.Error())
		return false
	}
	g := &bulk.StallGuard{Conn: conn, Timeout: s.idleTimeout, Ctx: ctx}
	switch req.Kind {
	case bulk.HTTPDownload:
		if _, err := conn.Write(bulk.ResponseHead(200, req.Bytes, req.KeepAlive, "")); err != nil {
			return false
		}
		if err := bulk.SendPattern(conn, req.Bytes, req.Phase, req.Buffer, g); err != nil {
			s.connLog.Debug("HTTP download ended early", "remote", remoteAddr(conn), "err", clip(err.Error()))
			return false
		}
		return req.KeepAlive
	case bulk.HTTPUpload:
		return s.receiveHTTP(conn, hr, req, g)
	case bulk.HTTPSource:
		return s.sendSourceHTTP(conn, req, g)
	}
	s.refuseHTTP(conn, 404, "not a throughput request")
	return false
}

// receiveHTTP reads an upload's body and checks it against the stream:
// 200, or 422 with the first wrong byte. The body is read to its end
// either way, so that the client's writes complete and it reads the
// answer.
func (s *Server) receiveHTTP(conn net.Conn, hr *bulk.HTTPReader, req bulk.HTTPRequest, g *bulk.StallGuard) bool {
	buf := make([]byte, req.Buffer)
	got, err := bulk.Receive(hr, req.Bytes, buf, bulk.NewPatternVerifier(req.Phase), true, g)
	var ie *bulk.IntegrityError
	switch {
	case errors.As(err, &ie):
		conn.SetDeadline(time.Now().Add(s.idleTimeout))
		s.refuseHTTP(conn, 422, err.Error())
		return false
	case err != nil:
		s.connLog.Debug("HTTP upload ended early", "remote", remoteAddr(conn), "received", got, "of", req.Bytes, "err", clip(err.Error()))
		return false
	}
	conn.SetDeadline(time.Now().Add(s.idleTimeout))
	body := strconv.FormatInt(got, 10) + "\n"
	if _, err := io.WriteString(conn, string(bulk.ResponseHead(200, int64(len(body)), req.KeepAlive, ""))+body); err != nil {
		return false
	}
	return req.KeepAlive
}

// sendSourceHTTP sends file source req.Source whole, in reads of the
// request's buffer size.
func (s *Server) sendSourceHTTP(conn net.Conn, req bulk.HTTPRequest, g *bulk.StallGuard) bool {
	if req.Source > len(s.sources) {
		s.refuseHTTP(conn, 404, fmt.Sprintf("file source %d: the server has %d", req.Source, len(s.sources)))
		return false
	}
	f, err := os.Open(s.sources[req.Source-1])
	if err != nil {
		s.refuseHTTP(conn, 500, fmt.Sprintf("file source %d cannot be read", req.Source))
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		s.refuseHTTP(conn, 500, fmt.Sprintf("file source %d: not a non-empty regular file", req.Source))
		return false
	}
	if _, err := conn.Write(bulk.ResponseHead(200, fi.Size(), req.KeepAlive, "")); err != nil {
		return false
	}
	buf := make([]byte, req.Buffer)
	for left := fi.Size(); left > 0; {
		n := int(min(int64(len(buf)), left))
		if _, err := io.ReadFull(f, buf[:n]); err != nil {
			// The length is promised: the connection cannot go on.
			s.connLog.Warn("file source changed while sent", "file", fi.Name(), "err", clip(err.Error()))
			return false
		}
		if _, err := conn.Write(buf[:n]); err != nil {
			return false
		}
		left -= int64(n)
		g.Tick()
	}
	return req.KeepAlive
}

// refuseHTTP answers a throughput request the server will not run, with
// the reason in the body and in bulk.HTTPErrorHeader, and logs it (rate
// limited); the connection then ends.
func (s *Server) refuseHTTP(conn net.Conn, status int, reason string) {
	s.connLog.Info("HTTP throughput request refused", "remote", remoteAddr(conn), "status", status, "reason", clip(reason))
	body := reason + "\n"
	io.WriteString(conn, string(bulk.ResponseHead(status, int64(len(body)), false, reason))+body)
}
