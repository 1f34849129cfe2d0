package measure

import (
	"crypto/tls"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// transport names the case's transport in its record.
func (hc *HandshakeCase) transport() string {
	if hc.QUIC != nil {
		return "quic"
	}
	return hc.Dialer.Transport()
}

// validateQUIC checks the settings of a QUIC case.
func (hc *HandshakeCase) validateQUIC() error {
	q := hc.QUIC
	if q == nil {
		return nil
	}
	switch {
	case q.Addr == "":
		return field.Errorf("QUIC.Addr", nil, "no address")
	case hc.Version != tls.VersionTLS13:
		return field.Errorf("Version", tlsconf.VersionName(hc.Version), "QUIC runs TLS 1.3 only (RFC 9001)")
	case hc.Proxy != nil:
		return field.Errorf("Proxy", nil, "a proxy is reached over TCP: QUIC cases cannot go through one")
	case q.EarlyData && !hc.Resume:
		return field.Errorf("QUIC.EarlyData", nil, "early data needs a session to resume: set %s", field.Ref("Resume"))
	}
	switch q.Request {
	case "", client.RequestPing, client.RequestHTTP, client.RequestHTTPGet:
	default:
		return field.Errorf("QUIC.Request", string(q.Request), "over QUIC the request is ping (tlsbench's own servers) or http or http-get (HTTP/3)")
	}
	return nil
}

// quicDefaults completes a QUIC case: its own copy of the dialer with its
// QUIC configuration, and clients that offer the request's protocol by
// ALPN (QUIC requires one) unless they name their own.
func (hc *HandshakeCase) quicDefaults() {
	if hc.QUIC == nil {
		return
	}
	q := *hc.QUIC
	if q.Request == "" {
		q.Request = client.RequestPing
	}
	if q.Host == "" {
		q.Host = q.Addr
	}
	// The handshake's idle timeout is the connection's; quic-go's own
	// 5 s would fail a slow handshake that the case allows.
	q.Conf = &quic.Config{HandshakeIdleTimeout: hc.ConnTimeout, MaxIdleTimeout: hc.ConnTimeout}
	hc.QUIC = &q
	clients := make([]*tls.Config, len(hc.Clients))
	for i, c := range hc.Clients {
		clients[i] = c
		if len(c.NextProtos) == 0 || q.EarlyData && c.Time == nil {
			clients[i] = c.Clone()
		}
		if len(c.NextProtos) == 0 {
			clients[i].NextProtos = []string{q.ALPN()}
		}
		if q.EarlyData && c.Time == nil {
			clients[i].Time = wholeSecondClock
		}
	}
	hc.Clients = clients
}

// wholeSecondClock is the clock of a client that sends early data: the
// time, down to the whole second.
//
// A client tells the server how old its ticket is (RFC 8446, 4.2.11.1),
// and a server may refuse early data whose age does not match its own
// reckoning: GnuTLS refuses it whenever the client's age is the larger.
// crypto/tls notes when it received a ticket in whole seconds, the
// fraction cut off, so that the age it sends is up to a second older than
// the ticket is, and such a server refuses nearly all of its early data
// (46 to 48 offers of 48 against ngtcp2's GnuTLS server). Read from a
// clock that has no fractions either, the age is exact to the second and
// never too old, except when a second begins between the ticket's
// arrival and its use and the ticket is not a second old: a chance of
// about its age in seconds (under 1% for the few milliseconds tickets
// wait here). Certificates are checked against it too, which a second
// does not change.
func wholeSecondClock() time.Time { return time.Now().Truncate(time.Second) }

// EarlyCounts counts early data offered, accepted and rejected, and
// late, the connections accepted whose request was written only after
// their handshake had ended (see quicConn.late).
type EarlyCounts struct{ Offered, Accepted, Rejected, Late int64 }

func (e *EarlyCounts) Count(o client.EarlyOutcome, late bool) {
	switch o {
	case client.EarlyAccepted:
		e.Offered++
		e.Accepted++
		if late {
			e.Late++
		}
	case client.EarlyRejected:
		e.Offered++
		e.Rejected++
	}
}

func (e *EarlyCounts) add(o EarlyCounts) {
	e.Offered += o.Offered
	e.Accepted += o.Accepted
	e.Rejected += o.Rejected
	e.Late += o.Late
}

// VersionsOf names the QUIC versions of a case as groupOf names groups:
// one name, or each with its count when they differed; "" for none.
func VersionsOf(versions map[string]int64) string {
	if len(versions) == 1 {
		for v := range versions {
			return v
		}
	}
	parts := make([]string, 0, len(versions))
	for v, n := range versions {
		parts = append(parts, fmt.Sprintf("%s:%d", v, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}
