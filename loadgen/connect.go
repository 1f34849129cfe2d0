package loadgen

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/connerr"
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

// connect runs one connection: dial, timed handshake, exchange, abortive
// close.
func (r *caseRunner) connect(ctx context.Context, cfg *tls.Config) client.Sample {
	hc := r.Case
	if hc.QUIC != nil {
		return r.connectQUIC(ctx, cfg)
	}
	dialed := time.Now()
	deadline := dialed.Add(hc.ConnTimeout)
	raw, err := hc.Dialer.Dial(ctx, deadline)
	if err != nil {
		return client.Sample{Stage: "connect", ErrKind: connerr.Kind(err), Err: err}
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
	tc := tls.Client(under, cfg)
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
	err = tc.Handshake()
	end := time.Now()
	took := end.Sub(t0)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return client.Sample{Stage: "handshake", ErrKind: connerr.Kind(err), Err: fmt.Errorf("handshake: %w", err)}
	}
	if pc != nil {
		pc.Watching = true
	}
	if err := hc.Exchange(tc); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		kind := connerr.Kind(err)
		if errors.Is(err, client.ErrBadEcho) {
			kind = "bad-echo"
		}
		return client.Sample{Stage: "exchange", ErrKind: kind, Err: fmt.Errorf("after handshake: %w", err)}
	}
	exchanged := time.Now()
	st := tc.ConnectionState()
	res := client.Sample{OK: true, Resumed: st.DidResume, Group: st.CurveID, Cipher: st.CipherSuite, Latency: took,
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
