package sessionidcheck

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/client/sessionid"
)

// closeWait bounds the close_notify a connection sends as it closes.
const closeWait = 100 * time.Millisecond

// Target is the server and how each connection to it is made.
type Target struct {
	Addr string
	// Config is the client's TLS configuration (sessionid.Handshake
	// narrows it to TLS 1.2, the suites it resumes, no tickets).
	Config *tls.Config
	// Timeout bounds each connection, and the simultaneous round.
	Timeout time.Duration
}

// ErrDial wraps a failure to connect.
var ErrDial = errors.New("connecting")

// Learn runs a full handshake that offers no ticket and returns the
// session the server keeps by ID, after exchange (which may be nil) ran
// on the connection. Its errors are sessionid.Handshake's:
// sessionid.ErrNoSessionID for a server that gave no session ID.
//
// An exchange that waits for an answer also waits for the server to
// keep the session: Java's stores it only after it has sent its
// Finished, so a resumption that follows a connection closed at once
// can reach the cache before the session does, on a busy machine.
func Learn(ctx context.Context, t Target, exchange func(*tls.Conn)) (*sessionid.Session, error) {
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	raw, err := dial(ctx, t.Addr)
	if err != nil {
		return nil, err
	}
	tc, s, err := sessionid.Handshake(ctx, raw, t.Config)
	if tc != nil {
		if err == nil && exchange != nil {
			exchange(tc)
		}
		tc.SetWriteDeadline(time.Now().Add(closeWait))
		tc.Close()
	}
	return s, err
}

// Answer is what the server said to the request on a resumed connection.
type Answer struct {
	// First is the answer's first line (a description for a ping or
	// HTTP/2), Err the request's failure.
	First string
	Err   error
}

// Resume offers s on a connection of its own and, once resumed, sends
// request r (host is an HTTP request's Host) unless skip. Its errors
// are sessionid.Resume's: sessionid.ErrNotResumed for a server that
// started a new session. A request that fails after the resumption is
// in the Answer, not the error.
func Resume(ctx context.Context, t Target, s *sessionid.Session, r client.Request, host string, skip bool) (Answer, error) {
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	raw, err := dial(ctx, t.Addr)
	if err != nil {
		return Answer{}, err
	}
	c, err := sessionid.Resume(ctx, raw, s)
	if err != nil {
		return Answer{}, err
	}
	defer c.Close()
	var a Answer
	if !skip {
		a.First, a.Err = send(c, r, host)
	}
	c.SetWriteDeadline(time.Now().Add(closeWait))
	return a, nil
}

// Round is the outcome of one simultaneous round.
type Round struct {
	Concurrency int
	// Resumed: abbreviated handshakes whose server Finished verified;
	// NewSessions: the server started a new session; Errors: other
	// failures, the first of them FirstErr.
	Resumed, NewSessions, Errors int
	FirstErr                     error
}

// Simultaneous offers s on n connections at once, each closed as soon as
// it resumed, all bounded by one Timeout.
func Simultaneous(ctx context.Context, t Target, s *sessionid.Session, n int) Round {
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = resumeAndClose(ctx, t.Addr, s)
		})
	}
	close(start)
	wg.Wait()
	r := Round{Concurrency: n}
	for _, err := range errs {
		switch {
		case err == nil:
			r.Resumed++
		case errors.Is(err, sessionid.ErrNotResumed):
			r.NewSessions++
		default:
			r.Errors++
			if r.FirstErr == nil {
				r.FirstErr = err
			}
		}
	}
	return r
}

// resumeAndClose resumes s on a connection of its own and closes it: a
// server that serves one connection at a time (openssl s_server) goes
// on to the next.
func resumeAndClose(ctx context.Context, addr string, s *sessionid.Session) error {
	raw, err := dial(ctx, addr)
	if err != nil {
		return err
	}
	c, err := sessionid.Resume(ctx, raw, s)
	if err != nil {
		return err
	}
	c.SetWriteDeadline(time.Now().Add(closeWait))
	c.Close() // resumed: how the close goes does not matter
	return nil
}

// dial connects with ctx's deadline on the connection too.
func dial(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDial, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		raw.SetDeadline(dl)
	}
	return raw, nil
}

// send sends request r over a connection resumed by session ID and reads
// the start of the answer, as every probe connection does (client's
// requests). TLS 1.2 sends nothing after its handshake that a wait could
// read, so wait sends nothing and reads nothing.
func send(c *sessionid.Conn, r client.Request, host string) (string, error) {
	if r == client.RequestWait {
		return "", nil
	}
	return r.Send(c, host)
}
