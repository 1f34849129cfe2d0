//go:build !race

package loadgen

import (
	"context"
	"crypto/tls"

	"github.com/quic-go/quic-go"
)

// dialQUIC dials q's server, returning as soon as early data can be sent
// when q sends it (see quicdial_race.go for the race detector's build).
func dialQUIC(ctx context.Context, q *QUICDialer, cfg *tls.Config) (*quic.Conn, *dialGate, error) {
	dial := quic.DialAddr
	if q.EarlyData {
		dial = quic.DialAddrEarly
	}
	conn, err := dial(ctx, q.Addr, cfg, q.conf)
	return conn, nil, err
}

// dialGate exists in the race detector's build only.
type dialGate struct{}

// sent and close do nothing outside the race detector's build.
func (*dialGate) sent()  {}
func (*dialGate) close() {}
