package loadgen

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/tlsbench/tlsbench/client"
)

// wrap returns a reused phaseConn around raw, or nil when the case
// records no phases. Give it back with r.conns.Put once the connection
// is done.
func (r *caseRunner) wrap(raw net.Conn) *client.PhaseConn {
	if !r.RecordsPhases() {
		return nil
	}
	pc, _ := r.conns.Get().(*client.PhaseConn)
	if pc == nil {
		pc = new(client.PhaseConn)
	}
	*pc = client.PhaseConn{Conn: raw}
	return pc
}

// shake runs a connection's TLS handshake on under (the dialed
// connection, or its phaseConn): what the connection is, and what its
// sample says of the handshake.
type shake func(under net.Conn) (client.Conn, client.IDState, error)

// connect runs one connection of client cl (the index of cfg among the
// case's clients): dial, timed handshake, exchange, abortive close.
func (r *caseRunner) connect(ctx context.Context, cfg *tls.Config, cl int) client.Sample {
	hc := r.Case
	if hc.QUIC != nil {
		return r.connectQUIC(ctx, cfg)
	}
	if hc.SessionIDs != nil {
		return r.connectByID(ctx, cfg, cl)
	}
	return r.connectWith(ctx, func(under net.Conn) (client.Conn, client.IDState, error) {
		tc := tls.Client(under, cfg)
		err := tc.Handshake()
		st := tc.ConnectionState()
		return tc, client.IDState{Resumed: st.DidResume, Group: st.CurveID, Cipher: st.CipherSuite}, err
	})
}

// connectByID is a connection of a case that resumes by session ID. A
// connection that offers a session the server declines (a cache miss:
// the server started a new session, and the client, which resumes by ID
// alone, closed the connection) makes a full handshake on a new
// connection, whose session replaces the declined one: the connection
// counts as not resumed, its latency spans both attempts, its phases are
// the second's. Connections that do not offer (priming, a mix's full
// ones, full cases) make full handshakes without the ticket extension
// and keep their sessions.
func (r *caseRunner) connectByID(ctx context.Context, cfg *tls.Config, cl int) client.Sample {
	pool := r.Case.SessionIDs
	_, deposit := cfg.ClientSessionCache.(depositOnly)
	offer := r.Case.Resume && !deposit
	byID := func(offer bool) shake {
		return func(under net.Conn) (client.Conn, client.IDState, error) {
			c, st, err := pool.Handshake(under, cfg, cl, offer)
			if st.Dry && r.full != nil {
				r.Dry.Add(1)
			}
			return c, st, err
		}
	}
	first := r.connectWith(ctx, byID(offer))
	if !errors.Is(first.Err, client.ErrNotResumed) {
		return first
	}
	again := r.connectWith(ctx, byID(false))
	if again.OK {
		again.Latency += first.Latency
		// The declined attempt's own work is not in the mix's parts.
		again.WorkLost = again.WorkLost || r.full != nil
	}
	return again
}

// connectWith runs one connection with the handshake shake.
func (r *caseRunner) connectWith(ctx context.Context, shake shake) client.Sample {
	hc := r.Case
	dialed := time.Now()
	deadline := dialed.Add(hc.ConnTimeout)
	raw, err := hc.Dialer.Dial(ctx, deadline)
	if err != nil {
		return client.Sample{Stage: "connect", ErrKind: client.ErrKind(err), Err: err}
	}
	connected := time.Now()
	defer client.AbortiveClose(raw)
	// The connection's deadline bounds it, and ending ctx moves the
	// deadline to now. This costs less than a context per connection,
	// for which crypto/tls would start a goroutine per handshake: the
	// harness's own CPU is part of what BENCHMARKS.md bounds.
	raw.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { raw.SetDeadline(time.Now()) })
	defer stop()
	var under net.Conn = raw
	pc := r.wrap(raw)
	if pc != nil {
		defer r.conns.Put(pc)
		under = pc
	}
	if pc != nil && r.full != nil {
		// A mix splits the client's CPU between its parts by what each
		// connection's own work took (see partCPU).
		pc.Measure = true
		pc.Work.Resume()
	}
	t0 := time.Now()
	if hc.LatencyFromDial || hc.Rate > 0 {
		// In open loop this is the service time, from the actual
		// start: the window adds the wait since the intended one.
		t0 = dialed
	}
	tc, st, err := shake(under)
	end := time.Now()
	took := end.Sub(t0)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		// Latency is kept for a declined resumption, which the
		// connection after it adds to its own (connectByID).
		return client.Sample{Stage: "handshake", ErrKind: client.ErrKind(err), Err: fmt.Errorf("handshake: %w", err), Latency: took}
	}
	if pc != nil {
		pc.Watching = true
	}
	if err := hc.Exchange(tc); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		kind := client.ErrKind(err)
		if errors.Is(err, client.ErrBadEcho) {
			kind = "bad-echo"
		}
		return client.Sample{Stage: "exchange", ErrKind: kind, Err: fmt.Errorf("after handshake: %w", err)}
	}
	exchanged := time.Now()
	res := client.Sample{OK: true, Resumed: st.Resumed, Group: st.Group, Cipher: st.Cipher, Latency: took,
		HSEnd: end, Exchange: exchanged.Sub(end)}
	if pc != nil {
		pc.Work.Pause()
		res.Work, res.WorkLost = pc.Work.CPU, pc.Work.Lost > 0
		res.Phases, res.Connect, res.Handshake, res.FirstByte, res.FirstResponse = true, connected.Sub(dialed), end.Sub(pc.Wrote), -1, -1
		if !pc.FirstRead.IsZero() {
			res.FirstByte = pc.FirstRead.Sub(end)
		}
		if !pc.Answer.IsZero() {
			res.FirstResponse = pc.Answer.Sub(dialed)
		}
	}
	return res
}
