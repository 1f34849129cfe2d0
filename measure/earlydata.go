package measure

import (
	"fmt"

	"github.com/tlsbench/tlsbench/results"
)

// EarlyDataError is a QUIC case in which the client and the server
// disagree on the early data the server accepted: a client that counts
// 0-RTT handshakes the server did not accept reports a saving that did
// not happen, and a server that accepted early data the client took for
// rejected had the request twice. Its record is returned with it, marked
// failed.
type EarlyDataError struct {
	Case                           string
	ClientAccepted, ServerAccepted int64
	// Failed counts the client's failed connections over the same
	// iterations: a connection that failed after its handshake may
	// have had its early data accepted by the server.
	Failed int64
}

func (e *EarlyDataError) Error() string {
	if e.ClientAccepted > e.ServerAccepted {
		return fmt.Sprintf("%s: the client saw its early data accepted on %d connections, the server counted %d accepted: handshakes the client took for 0-RTT were not accepted as such by the server",
			e.Case, e.ClientAccepted, e.ServerAccepted)
	}
	return fmt.Sprintf("%s: the server counted %d connections' early data accepted, the client saw %d accepted and %d connections fail: the server accepted requests that the client took for rejected and sent again",
		e.Case, e.ServerAccepted, e.ClientAccepted, e.Failed)
}

// QUICFigures fills a QUIC case's version and early data over the kept
// iterations, with the server's own counts when it reports them, and
// returns an EarlyDataError when the two disagree on what the server
// accepted.
func (r *Measurer) QUICFigures(rec *results.Record, m *Measured, f Figures) error {
	hc := r.Case
	if hc.QUIC == nil {
		return nil
	}
	rec.QUICVersion = VersionsOf(m.Total.quicVersions)
	if hc.Server != nil && f.serverErr == nil && f.server.HasCounts {
		quicServerFigures(rec, f.server)
	}
	if !hc.QUIC.EarlyData {
		return nil
	}
	e := m.Total.Early
	rec.EarlyDataOffered, rec.EarlyDataAccepted, rec.EarlyDataRejected = results.Int(e.Offered), results.Int(e.Accepted), results.Int(e.Rejected)
	switch {
	case e.Offered == 0 && rec.Resumed > 0:
		rec.Notes = append(rec.Notes, "no early data offered: none of the sessions resumed allowed it (the server's session tickets do not permit early data), so these are 1-RTT resumptions, not 0-RTT")
	case e.Offered < rec.Resumed:
		rec.Notes = append(rec.Notes, fmt.Sprintf("early data offered on %d of %d resumed handshakes: the other sessions did not permit it, and those resumed in one round trip",
			e.Offered, rec.Resumed))
	}
	if e.Late > 0 {
		rec.Notes = append(rec.Notes, fmt.Sprintf("%d of the %d connections whose early data was accepted wrote their request only after the handshake had ended (the client was behind: a busy machine), so it went as 1-RTT data and their first response is a 1-RTT one",
			e.Late, e.Accepted))
	}
	srv := f.server
	if hc.Server == nil || f.serverErr != nil || !srv.HasCounts || !srv.HasEarlyData {
		return nil
	}
	rec.ServerEarlyDataAccepted, rec.ServerEarlyDataRejected = results.Int(srv.EarlyDataAccepted), results.Int(srv.EarlyDataRejected)
	var failed int64
	for _, n := range m.Total.failures {
		failed += n
	}
	if srv.EarlyDataRejected != e.Rejected {
		rec.Notes = append(rec.Notes, fmt.Sprintf("the server counted %d early-data rejections, the client %d", srv.EarlyDataRejected, e.Rejected))
	}
	// Every early data the client saw accepted, the server must have
	// counted; the server may count more only by the connections that
	// failed on the client after their handshake.
	if e.Accepted > srv.EarlyDataAccepted || srv.EarlyDataAccepted > e.Accepted+failed {
		return &EarlyDataError{Case: hc.Name, ClientAccepted: e.Accepted, ServerAccepted: srv.EarlyDataAccepted, Failed: failed}
	}
	return nil
}

// quicServerFigures records the server's Retries and refusals of a QUIC
// case, with a note when there were any: the handshakes measured then
// include a round trip more, or failed, because the server was past its
// limits of connections at once, not because of what the case measures.
func quicServerFigures(rec *results.Record, srv ServerSnapshot) {
	rec.ServerQUICRetries, rec.ServerQUICRefused = results.Int(srv.QUICRetries), results.Int(srv.QUICRefused)
	if n := quicLimitNote(srv.QUICRetries, srv.QUICRefused); n != "" {
		rec.Notes = append(rec.Notes, n)
	}
}

// quicLimitNote is the note of a case in which the server asked retries
// connections to prove their address and refused refused; "" for none.
func quicLimitNote(retries, refused int64) string {
	var what string
	switch {
	case retries > 0 && refused > 0:
		what = fmt.Sprintf("the server asked %d connections to prove their address first (a QUIC Retry: a round trip more each, in the handshake times measured) and refused %d (counted as errors)", retries, refused)
	case retries > 0:
		what = fmt.Sprintf("the server asked %d connections to prove their address first (a QUIC Retry: a round trip more each, in the handshake times measured)", retries)
	case refused > 0:
		what = fmt.Sprintf("the server refused %d connections (counted as errors)", refused)
	default:
		return ""
	}
	return what + ": more connections were waiting for their ClientHello, or in their handshake, or open, at once than it takes without that; lower the concurrency or the rate"
}
