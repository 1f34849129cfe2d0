package server

import (
	"context"
	"net"
	"time"
)

// Connection limits of the server (the cap counts TCP and QUIC
// connections alike).
const (
	// DefaultFirstByteTimeout is how long a new connection may stay
	// silent before its first byte: a ClientHello comes at once from
	// any real client, and a silent socket held open only takes a
	// descriptor and a slot under the connection cap. The handshake
	// timeout still bounds the whole handshake after that byte.
	DefaultFirstByteTimeout = 3 * time.Second
	// MaxFirstByteTimeout and MaxHandshakeTimeout bound what may be
	// asked for: longer only lets silent clients hold connections.
	MaxFirstByteTimeout = 10 * time.Minute
	MaxHandshakeTimeout = 10 * time.Minute
	// MaxMaxConns bounds the connection cap that may be asked for.
	MaxMaxConns = 1 << 20
	// defaultMaxConnsCeiling bounds the cap derived from the
	// descriptor limit: some tens of KiB of buffers and a goroutine
	// each, 65536 connections are a few GiB.
	defaultMaxConnsCeiling = 1 << 16
	// minDefaultMaxConns is the cap even under a tiny descriptor limit.
	minDefaultMaxConns = 16
)

// DefaultMaxConns is the connection cap of a server not given one: the
// process's descriptor limit (RLIMIT_NOFILE, whose soft limit the Go
// runtime raises to the hard limit when the process starts) less a
// reserve for the listeners, control channel, key and watched files,
// at most 65536. A server at its descriptor limit cannot accept at all,
// and connections then wait in the kernel's listen queue, legitimate
// ones with the others; under the cap the excess is accepted and closed
// at once, and the queue keeps moving.
func DefaultMaxConns() int {
	n, ok := descriptorLimit()
	if !ok {
		return defaultMaxConnsCeiling
	}
	reserve := max(64, n/10)
	return int(min(max(n-reserve, minDefaultMaxConns), defaultMaxConnsCeiling))
}

// WithMaxConns caps the connections served at once, TCP and QUIC
// together (default DefaultMaxConns); a TCP one over the cap is closed
// as soon as it is accepted, a QUIC one refused (CONNECTION_REFUSED)
// before it gets a connection, and each logged. A QUIC connection holds
// its slot from its client's first packet until it ends, whichever way
// (handshake failure, close, idle timeout).
func WithMaxConns(n int) Option {
	return func(s *Server) { s.maxConns = n }
}

// WithFirstByteTimeout closes a connection that sends nothing for d
// after it was accepted (default DefaultFirstByteTimeout; a timeout
// at or over the handshake timeout leaves that one alone to decide).
func WithFirstByteTimeout(d time.Duration) Option {
	return func(s *Server) { s.firstByteTimeout = d }
}

// admit takes a slot under the connection cap for c, or closes c and
// logs the refusal when every slot is held; release gives the slot back.
func (s *Server) admit(c net.Conn) bool {
	if s.held.Add(1) <= int64(s.maxConns) {
		return true
	}
	s.held.Add(-1)
	s.refusedMaxConns.Add(1)
	c.Close()
	s.connLog.Warn("connection refused: at the connection limit", "remote", remoteAddr(c), "max_conns", s.maxConns)
	return false
}

func (s *Server) release() { s.held.Add(-1) }

// serveCapped is ServeConn under the connection cap.
func (s *Server) serveCapped(ctx context.Context, c net.Conn) {
	if !s.admit(c) {
		return
	}
	defer s.release()
	s.ServeConn(ctx, c)
}

// firstByteDeadline sets c's deadline for the wait for the first byte
// and returns what hc calls when it comes: the handshake's own deadline,
// unless ctx has ended meanwhile (then the deadline is now, as ctx's
// watcher set it). Nil when the first-byte timeout does not come before
// the handshake's.
func (s *Server) firstByteDeadline(ctx context.Context, c net.Conn, accepted, deadline time.Time) func() {
	first := accepted.Add(s.firstByteTimeout)
	if s.firstByteTimeout <= 0 || !first.Before(deadline) {
		return nil
	}
	c.SetDeadline(first)
	return func() {
		c.SetDeadline(deadline)
		if ctx.Err() != nil {
			c.SetDeadline(time.Now())
		}
	}
}
