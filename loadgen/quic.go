package loadgen

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// A QUIC connection follows the procedure of a TCP one (connect): a
// timed handshake, an exchange that makes the client read the server's
// TLS 1.3 session ticket, and a close; what differs is what the
// transport offers. QUIC has no connect: the dial sends the handshake's
// first packet. And a client that resumes a session whose ticket allows
// it may send its request as TLS 1.3 early data (0-RTT), before the
// handshake ends: the server accepts it, or rejects it and the client
// sends the request again once the handshake is over, a round trip
// later. Each connection records which happened, and the case compares
// its counts with the server's own.

// quicConn is one QUIC connection in progress.
type quicConn struct {
	conn   *quic.Conn
	gate   *client.DialGate // nil outside the race detector's build
	dialed time.Time
	hsEnd  time.Time // the end of the client's handshake
	// exchanged is when the exchange (and the wait for a ticket) ended.
	exchanged time.Time
	// offered says the ClientHello offered early data: the dial
	// returned with 0-RTT keys, before the handshake ended; rejected
	// that the server refused it (quic.Err0RTTRejected was seen).
	offered, rejected bool
}

// connectQUIC runs one QUIC connection: dial, handshake (with the
// request sent as early data when it may be), exchange, close.
func (r *caseRunner) connectQUIC(ctx context.Context, cfg *tls.Config) client.Sample {
	hc, q := r.Case, r.Case.QUIC
	c := &quicConn{dialed: time.Now()}
	cctx, cancel := context.WithDeadline(ctx, c.dialed.Add(hc.ConnTimeout))
	defer cancel()
	var ticket *client.TicketNotice
	if q.HTTP() && cfg.ClientSessionCache != nil {
		// An HTTP/3 server may answer early data before it sends its
		// ticket: wait for the ticket after the answer.
		cfg, ticket = client.WithTicketNotice(cfg)
	}
	// With early data, the dial returns as soon as the 0-RTT keys are
	// there when the session permits early data, otherwise once the
	// handshake is complete.
	conn, gate, err := client.DialQUIC(cctx, q, cfg)
	if err != nil {
		return quicFailure(cctx, "handshake", fmt.Errorf("handshake: %w", err))
	}
	c.conn, c.gate = conn, gate
	defer gate.Close()
	defer func() { c.conn.CloseWithError(q.CloseCode(), "") }()
	stop := context.AfterFunc(cctx, func() { conn.CloseWithError(q.CloseCode(), "") })
	defer stop()
	select {
	case <-conn.HandshakeComplete():
		c.hsEnd = time.Now()
	default:
		c.offered = true
	}
	answered, err := c.exchange(cctx, q)
	if err != nil {
		stage := "exchange"
		if c.hsEnd.IsZero() {
			stage = "handshake"
		}
		return quicFailure(cctx, stage, err)
	}
	if ticket != nil {
		if err := ticket.Wait(cctx, conn); err != nil {
			return quicFailure(cctx, "exchange", err)
		}
	}
	c.exchanged = time.Now()
	return c.result(hc, answered)
}

// exchange sends the request (as early data when the dial returned
// before the handshake ended), waits for the handshake, reads the answer
// and then the rest of the exchange, and returns when the answer's first
// byte came. A request the server rejected as early data is sent again.
func (c *quicConn) exchange(ctx context.Context, q *client.QUICDialer) (time.Time, error) {
	ex := q.NewExchange()
	err := ex.Send(ctx, c.conn)
	c.gate.Sent()
	if c.hsEnd.IsZero() {
		if herr := c.waitHandshake(ctx); herr != nil {
			return time.Time{}, herr
		}
		if !c.conn.ConnectionState().Used0RTT {
			// Rejected. The first exchange is left alone: its
			// streams are gone, and cancelling one (as an HTTP/3
			// read that fails does) would reset the stream of the
			// same number that the request sent again opens.
			err = quic.Err0RTTRejected
		}
	}
	if err == nil {
		err = ex.Answer()
	}
	if errors.Is(err, quic.Err0RTTRejected) {
		c.rejected = true
		next, nerr := c.conn.NextConnection(ctx)
		if nerr != nil {
			return time.Time{}, fmt.Errorf("after early data was rejected: %w", nerr)
		}
		c.conn = next
		ex = q.NewExchange()
		if err = ex.Send(ctx, c.conn); err == nil {
			err = ex.Answer()
		}
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("after handshake: %w", err)
	}
	answered := time.Now()
	if err := ex.Finish(); err != nil {
		return time.Time{}, fmt.Errorf("after the answer: %w", err)
	}
	return answered, nil
}

// waitHandshake waits for the end of a handshake whose dial returned
// early, and notes when it came.
func (c *quicConn) waitHandshake(ctx context.Context) error {
	select {
	case <-c.conn.HandshakeComplete():
	case <-c.conn.Context().Done():
		select {
		case <-c.conn.HandshakeComplete():
		default:
			return fmt.Errorf("handshake: %w", context.Cause(c.conn.Context()))
		}
	case <-ctx.Done():
		return fmt.Errorf("handshake: %w", ctx.Err())
	}
	c.hsEnd = time.Now()
	return nil
}

// result is a successful connection's outcome.
func (c *quicConn) result(hc *measure.HandshakeCase, answered time.Time) client.Sample {
	st := c.conn.ConnectionState()
	res := client.Sample{OK: true, Resumed: st.TLS.DidResume, Group: st.TLS.CurveID, Cipher: st.TLS.CipherSuite,
		Latency: c.hsEnd.Sub(c.dialed), QUICVersion: tlsconf.QUICVersionName(uint32(st.Version)),
		HSEnd: c.hsEnd, Exchange: c.exchanged.Sub(c.hsEnd)}
	// Used0RTT is set once the handshake ends with the early data
	// accepted; the dial returning early or a rejection seen says it
	// was offered. An offer not accepted was rejected, whether or not
	// the exchange saw the rejection itself. An offer accepted whose
	// dial returned after the handshake had already ended (a client
	// behind on a busy machine) wrote its request as 1-RTT data: the
	// server accepted early data that carried nothing, and the
	// connection's first response is a 1-RTT one.
	switch {
	case st.Used0RTT:
		res.Early, res.EarlyLate = client.EarlyAccepted, !c.offered
	case c.offered || c.rejected:
		res.Early = client.EarlyRejected
	}
	// The answer is read once the handshake has ended (exchange), so
	// that first_byte is never negative.
	res.Phases, res.Connect, res.Handshake, res.FirstByte = true, -1, c.hsEnd.Sub(c.dialed), answered.Sub(c.hsEnd)
	res.FirstResponse = answered.Sub(c.dialed)
	return res
}

// quicFailure is a failed QUIC connection: the context's error when it
// ended (the connection timeout, the case's end), which closes the
// connection and so is the cause of whatever failed next.
func quicFailure(ctx context.Context, stage string, err error) client.Sample {
	if cerr := ctx.Err(); cerr != nil {
		err = fmt.Errorf("%s: %w", stage, cerr)
	}
	return client.Sample{Stage: stage, ErrKind: client.QUICKind(err), Err: err}
}
