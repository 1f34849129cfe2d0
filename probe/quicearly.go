package probe

import (
	"context"
	"crypto/tls"
	"fmt"
	"strings"
	"time"
)

// quicEarly runs the early-data checks: a request as early data on an
// unused ticket, the same ticket's second use with
// early data, and the replay of the first use's first flight. base is
// the resumption without early data that resumption was judged by.
func (p *prober) quicEarly(ctx context.Context, q *QUIC, base quicResult, window time.Duration) {
	if q.Tickets.MaxEarlyData.Status != Yes {
		reason := "the server's tickets do not allow early data"
		q.EarlyData = no(reason + ": clients resume in one round trip, never with early data")
		q.EarlyDataReuse = notTested(reason)
		q.Replay.Finding = notTested(reason)
		return
	}
	ticket := p.takeTicket(ctx)
	if ticket == nil {
		p.quicSkipEarly(q, "no unused ticket that allows early data (a full handshake to get one brought none)")
		return
	}
	p.progress("QUIC: request as early data (0-RTT)")
	orig := p.quicConnect(ctx, quicSpec{offer: ticket, early: true, hold: window})
	p.unused = append(p.unused, orig.Sessions...)
	q.EarlyData = earlyFinding(orig)
	if q.EarlyData.Status != Yes {
		reason := "the server did not accept early data on an unused ticket"
		if q.EarlyData.Status != No {
			reason = "the early-data attempt did not tell"
		}
		q.EarlyDataReuse = notTested(reason)
		q.Replay.Finding = notTested(reason)
		return
	}
	p.progress("QUIC: the same ticket again, with early data")
	q.EarlyDataReuse = p.earlyReuse(ctx, ticket)
	p.progress("QUIC: the 0-RTT flight replayed")
	q.Replay = p.replayTest(ctx, orig, base, window)
}

// takeTicket returns an unused ticket that allows early data, or one
// from a new full handshake.
func (p *prober) takeTicket(ctx context.Context) *tls.ClientSessionState {
	for range 2 {
		for i, cs := range p.unused {
			if allowsEarlyData(cs) {
				p.unused = append(p.unused[:i:i], p.unused[i+1:]...)
				return cs
			}
		}
		r := p.quicConnect(ctx, quicSpec{})
		p.unused = append(p.unused, r.Sessions...)
	}
	return nil
}

// earlyFinding judges a connection that sent its request as early data.
func earlyFinding(r quicResult) Finding {
	switch {
	case r.Err != nil:
		return failed("the early-data attempt failed: " + quicErrText(r.Err))
	case !r.earlySent():
		return notTested("the client sent no early data with a ticket that allows it")
	case !r.State.TLS.DidResume:
		return no("the server answered the ticket with a full handshake, which refuses its early data too")
	case r.Rejected || !r.State.Used0RTT:
		return no("the server resumed the session but rejected its early data: the request must go again after the handshake, a round trip later")
	}
	if r.Answer.Err != nil {
		return yes(fmt.Sprintf("the server accepted the early data (%s; the handshake completed as 0-RTT), but did not answer the request: %s", plural(r.Relay.FlightCounts.ZeroRTT, "0-RTT packet"), errText(r.Answer.Err)))
	}
	return yes(fmt.Sprintf("the server accepted the request sent as early data (%s) and answered: %s", plural(r.Relay.FlightCounts.ZeroRTT, "0-RTT packet"), r.Answer.First))
}

// earlyReuse offers ticket, whose early data was accepted, again with
// early data. A refusal is confirmed against an unused ticket, to tell
// single-use tickets from a server that stopped taking early data.
func (p *prober) earlyReuse(ctx context.Context, ticket *tls.ClientSessionState) Finding {
	r := p.quicConnect(ctx, quicSpec{offer: ticket, early: true})
	p.unused = append(p.unused, r.Sessions...)
	switch {
	case r.Err != nil:
		return failed("the second use of the ticket failed: " + quicErrText(r.Err))
	case !r.earlySent():
		return notTested("the client sent no early data on the ticket's second use")
	case r.State.Used0RTT:
		return yes("the ticket's second use had its early data accepted too")
	}
	what := "had its early data rejected (the session resumed)"
	if !r.State.TLS.DidResume {
		what = "got a full handshake"
	}
	fresh := p.takeTicket(ctx)
	if fresh == nil {
		return notTested("the ticket's second use " + what + ", and no unused ticket was left to tell single-use tickets from a server that stopped accepting early data")
	}
	c := p.quicConnect(ctx, quicSpec{offer: fresh, early: true})
	p.unused = append(p.unused, c.Sessions...)
	if c.Err == nil && c.State.Used0RTT {
		return no("single-use: the ticket's second use " + what + ", while an unused ticket's early data was accepted")
	}
	return notTested("the ticket's second use " + what + ", and an unused ticket's early data was not accepted either: the server accepts early data unreliably")
}

// replayDelay is how long the replay waits after the original
// connection closed. A QUIC server keeps a closed connection's IDs for
// three probe timeouts (RFC 9000 section 10.2) and drops what comes for
// them, the replay's Initial packets included; its probe timeout counts
// the window during which the client's Finished was held back, which
// its round-trip estimate took for a round trip (three such, with the
// variance). Fifteen windows leave room.
func replayDelay(window, rtt time.Duration) time.Duration {
	return 15*(window+rtt) + 250*time.Millisecond
}

// replayAttempts bounds the replays of a flight: another one follows
// only when the server ignored the one before altogether (it may still
// have been holding the original connection: a loaded server's probe
// timeout, and so its draining period, grows), each after twice the
// wait of the one before, so that the server has read at most one.
const replayAttempts = 3

// replayTest sends the first flight of orig again, from another
// address, and judges the server's answer against the calibration: what
// it sent before the client's Finished to the same flight (orig) and to
// a resumption without early data (base), within the same window.
func (p *prober) replayTest(ctx context.Context, orig, base quicResult, window time.Duration) Replay {
	rep := Replay{WaitMS: ms(window)}
	o := orig.Relay.Before
	rep.Original = &o
	if base.Err == nil && base.State.TLS.DidResume {
		b := base.Relay.Before
		rep.Baseline = &b
	}
	fc := orig.Relay.FlightCounts
	rep.Datagrams, rep.Bytes, rep.Initial, rep.ZeroRTT = fc.Datagrams, fc.Bytes, fc.Initial, fc.ZeroRTT
	switch {
	case orig.Relay.Overlong:
		rep.Finding = notTested(fmt.Sprintf("the client's first flight had more than %d datagrams", relayMaxFlight))
		return rep
	case fc.Initial == 0 || fc.ZeroRTT == 0 || orig.Relay.CID == nil:
		rep.Finding = notTested("the first flight recorded has no Initial or no 0-RTT packet")
		return rep
	}
	delay := min(replayDelay(window, orig.Relay.FirstAnswer), 2*p.o.Timeout)
	rep.DelayMS = ms(delay)
	at, wait := orig.Ended, delay
	var waits []string
	var ans replayAnswer
	for rep.Attempts < replayAttempts && ans.Handshake.Datagrams == 0 {
		if rep.Attempts > 0 {
			wait *= 2
		}
		if err := sleepUntil(ctx, at.Add(wait)); err != nil {
			rep.Finding = failed("interrupted")
			return rep
		}
		var err error
		ans, err = replay(ctx, p.udpAddr, orig.Relay.Flight, orig.Relay.CID, window)
		at = time.Now()
		rep.Attempts++
		waits = append(waits, wait.String())
		if err != nil {
			rep.Finding = failed("the replay could not be sent: " + errText(err))
			return rep
		}
	}
	rep.Answer, rep.Later, rep.Apart = &ans.Handshake, ans.Later, ans.Apart
	rep.Finding = judgeReplay(ans, o, rep.Baseline, window)
	if rep.Attempts > 1 {
		rep.Detail = fmt.Sprintf("(the server ignored %d replays before this one; they were sent %s after the original connection closed or the replay before) %s",
			rep.Attempts-1, strings.Join(waits, ", "), rep.Detail)
	}
	return rep
}

// sleepUntil waits until t or the end of ctx.
func sleepUntil(ctx context.Context, t time.Time) error {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// judgeReplay decides what the server did with a replayed flight from
// its answer (ans), against the calibration: its answer to the same
// flight the first time (orig, whose early data it accepted) and to a
// resumption without early data (base, nil when unknown), each counted
// before the client's Finished, within window.
//
// A server that accepts 0-RTT packets must acknowledge them, and does so
// in 1-RTT packets (0-RTT and 1-RTT share a packet number space), within
// its max_ack_delay (RFC 9000 section 13.2.1); its answer to the early
// data comes in 1-RTT packets too. A server that rejects them never
// acknowledges them. The clearest sign is its answer to the 0-RTT
// datagrams that the replay sends apart, after the server's first
// answer (see replay): 1-RTT packets alone, or nothing. 1-RTT packets in
// the first answer are only a sign when the server sends none without
// early data: it may send some anyway (new connection IDs, for one),
// and pads the datagrams of its first answer.
func judgeReplay(ans replayAnswer, orig PacketCounts, base *PacketCounts, window time.Duration) Finding {
	evidence := fmt.Sprintf("; to the same flight the first time, whose early data it accepted, it sent %s", orig.describe())
	if base != nil {
		evidence += fmt.Sprintf("; to a resumption without early data %s", base.describe())
	}
	evidence += fmt.Sprintf(" (both before the client's Finished, within %v)", window)
	first := ans.Handshake
	got := "the server answered the replayed ClientHello with " + first.describe()
	if l := ans.Later; l != nil {
		got += fmt.Sprintf(", and the %s of 0-RTT packets alone, sent after that, with %s", plural(ans.Apart, "datagram"), l.describe())
	}
	switch {
	case first.Datagrams == 0 && (ans.Later == nil || ans.Later.Datagrams == 0):
		return notTested(fmt.Sprintf("the server sent nothing back within %v: it ignored the replayed flight altogether, which does not show what it does with replayed early data that it reads", window) + evidence)
	case orig.Short == 0:
		return notTested(got + ": the server sends no 1-RTT packet before the client's Finished even for early data it accepts, so its answer cannot tell" + evidence)
	case first.Short == 0 && first.Retry > 0:
		return no(got + ": a Retry (address validation), which discards 0-RTT packets" + evidence)
	case first.Handshake == 0:
		return notTested(got + ": no Handshake packet, so the server did not take the replayed ClientHello as far as early data" + evidence)
	}
	if l := ans.Later; l != nil {
		switch {
		case l.ShortAlone > 0:
			return yes(got + ": datagrams of 1-RTT packets alone, which acknowledge or answer the replayed 0-RTT packets (a server sends nothing else in 1-RTT before the Finished unprompted, once its first answer is out): it accepted the replayed early data" + evidence)
		case l.Short == 0:
			return no(fmt.Sprintf("%s: no 1-RTT packet, so it neither acknowledged nor answered the replayed 0-RTT packets within %v: it rejected the early data", got, window) + evidence)
		default:
			return notTested(got + ": its 1-RTT packets came with packets of its handshake, sent again, so whether they answer the 0-RTT packets cannot be told" + evidence)
		}
	}
	switch {
	case first.Short == 0:
		return no(got + ": no 1-RTT packet, so it neither acknowledged nor answered the replayed 0-RTT packets: it rejected the early data" + evidence)
	case base != nil && base.Short == 0:
		return yes(got + ": 1-RTT packets, which it does not send before the client's Finished without early data: they acknowledge or answer the replayed 0-RTT packets, so it accepted the replayed early data" + evidence)
	}
	return notTested(got + ": its 1-RTT packets may acknowledge or answer the 0-RTT packets that traveled with the ClientHello, or be what it sends anyway (it sends some without early data too, and pads them), so they cannot tell" + evidence)
}

// describe lists the packets counted: "2 datagrams (1252 bytes): 1
// Initial, 2 Handshake, 1 1-RTT (45 bytes)".
func (c PacketCounts) describe() string {
	if c.Datagrams == 0 {
		return "nothing"
	}
	var parts []string
	for _, k := range []struct {
		n    int
		name string
	}{{c.Initial, "Initial"}, {c.ZeroRTT, "0-RTT"}, {c.Handshake, "Handshake"}, {c.Retry, "Retry"}, {c.VersionNegotiation, "Version Negotiation"}} {
		if k.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", k.n, k.name))
		}
	}
	if c.Short > 0 {
		parts = append(parts, fmt.Sprintf("%d 1-RTT (%d bytes)", c.Short, c.ShortBytes))
	} else {
		parts = append(parts, "no 1-RTT")
	}
	if c.Other > 0 {
		parts = append(parts, fmt.Sprintf("%d other", c.Other))
	}
	return fmt.Sprintf("%s (%d bytes): %s", plural(c.Datagrams, "datagram"), c.Bytes, strings.Join(parts, ", "))
}

// plural is "1 datagram", "2 datagrams".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }
