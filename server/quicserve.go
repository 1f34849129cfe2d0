package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/quic-go/quic-go/http3"
)

// The protocols of the QUIC listener. Each connection runs its protocol
// on a goroutine of its own while serveQUICConn waits for the handshake
// and counts it, so that the count does not wait for the exchange, and
// the exchange can answer early data before the handshake ends.

// servePing is tlsbench's own exchange (tlsconf.ALPNQUICPing): the
// client's byte comes back at once (before the handshake completes when
// it came as early data), and the stream ends only after the handshake
// has completed and been counted: the server sends its session ticket
// then, before the stream's end, so that a client that reads to the end
// has read its ticket, and finds its handshake in the server's counters.
// Every wait is bounded by the server's idle timeout, as the TCP echo's.
func (s *Server) servePing(qc *quicConn) {
	c := qc.conn
	ctx, cancel := context.WithTimeout(c.Context(), s.idleTimeout)
	defer cancel()
	str, err := c.AcceptStream(ctx)
	if err != nil {
		return
	}
	str.SetDeadline(time.Now().Add(s.idleTimeout))
	var b [1]byte
	if _, err := io.ReadFull(str, b[:]); err != nil {
		str.CancelWrite(0)
		return
	}
	if _, err := str.Write(b[:]); err != nil {
		return
	}
	<-qc.outcome
	if !qc.ok {
		return
	}
	str.Close()
	// The client closes the connection once it has read the end; the
	// server closing it first could discard what it has not yet sent.
	t := time.NewTimer(s.idleTimeout)
	defer t.Stop()
	select {
	case <-c.Context().Done():
	case <-t.C:
		s.connLog.Debug("idle connection closed", "remote", qc.remote, "idle", s.idleTimeout)
	}
}

// http3Server answers HTTP/3 as the TCP path answers HTTP/1.x: any GET
// or HEAD gets a short 200, other methods 405. Requests sent as early
// data are answered once the handshake completes (quic-go's HTTP/3
// server waits for it to give the request its TLS state).
func (s *Server) http3Server() *http3.Server {
	return &http3.Server{
		Handler:        http.HandlerFunc(s.serveHTTP3),
		MaxHeaderBytes: maxHTTPHead,
		IdleTimeout:    s.idleTimeout,
		// Its own lines speak of its internals; the server logs the requests.
		Logger: slog.New(slog.DiscardHandler),
	}
}

func (s *Server) serveHTTP3(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		s.connLog.Info("HTTP request refused", "remote", r.RemoteAddr, "status", http.StatusMethodNotAllowed, "method", clip(r.Method))
		http.Error(w, "405 Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	s.connLog.Debug("HTTP request answered", "remote", r.RemoteAddr, "method", r.Method, "version", r.Proto)
	h.Set("Content-Length", strconv.Itoa(len(httpBody)))
	if r.Method == http.MethodGet {
		io.WriteString(w, httpBody)
	}
}
