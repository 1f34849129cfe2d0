//go:build race

package client

import (
	"context"
	"crypto/tls"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
)

// quic-go (through at least v0.65.0) opens a stream in 0-RTT reading the
// server's transport parameters, which its connection's goroutine writes
// when the server's first flight arrives, with nothing ordering the two:
// a data race for the race detector, harmless in practice (either value
// is one the stream may use). So that the race detector's build can test
// early data at all, it holds the packets of a connection that will send
// early data until the client has opened its stream and written its
// request (sent), which orders the two. It dials over a socket of its
// own for that, which quic-go then reads one packet at a time; the
// normal build (quicdial.go) dials as quic-go does.

// heldAtMost bounds the hold, for a session that permitted early data
// that quic-go then did not send.
const heldAtMost = 100 * time.Millisecond

// DialGate holds a connection's incoming packets until its request is
// sent, when the connection sends early data.
type DialGate struct {
	hold atomic.Bool // decided before the ClientHello goes out
	open chan struct{}
	once sync.Once
	conn *net.UDPConn
	tr   *quic.Transport
}

func (g *DialGate) Sent() {
	if g != nil {
		g.once.Do(func() { close(g.open) })
	}
}

// close releases the packets and closes the socket, after the connection.
func (g *DialGate) Close() {
	if g == nil {
		return
	}
	g.Sent()
	g.tr.Close()
	g.conn.Close()
}

// gatedConn is the socket of a held connection. It sizes its buffers as
// a UDP socket does, so that quic-go does not warn that it cannot.
type gatedConn struct {
	net.PacketConn
	g *DialGate
}

func (c gatedConn) ReadFrom(p []byte) (int, net.Addr, error) {
	if c.g.hold.Load() {
		select {
		case <-c.g.open:
		default:
			t := time.NewTimer(heldAtMost)
			select {
			case <-c.g.open:
			case <-t.C:
			}
			t.Stop()
		}
	}
	return c.PacketConn.ReadFrom(p)
}

func (c gatedConn) SetReadBuffer(n int) error  { return c.g.conn.SetReadBuffer(n) }
func (c gatedConn) SetWriteBuffer(n int) error { return c.g.conn.SetWriteBuffer(n) }

// earlyNotice is a connection's session cache that decides the hold: a
// session whose ticket permits early data will be sent with it.
type earlyNotice struct {
	tls.ClientSessionCache
	g *DialGate
}

func (e earlyNotice) Get(key string) (*tls.ClientSessionState, bool) {
	cs, ok := e.ClientSessionCache.Get(key)
	if ok && cs != nil {
		if _, ss, err := cs.ResumptionState(); err == nil && ss != nil && ss.EarlyData {
			e.g.hold.Store(true)
		}
	}
	return cs, ok
}

func DialQUIC(ctx context.Context, q *QUICDialer, cfg *tls.Config) (*quic.Conn, *DialGate, error) {
	if !q.EarlyData || cfg.ClientSessionCache == nil {
		conn, err := quic.DialAddr(ctx, q.Addr, cfg, q.Conf)
		return conn, nil, err
	}
	addr, err := net.ResolveUDPAddr("udp", q.Addr)
	if err != nil {
		return nil, nil, err
	}
	pc, err := net.ListenUDP("udp", nil)
	if err != nil {
		return nil, nil, err
	}
	g := &DialGate{open: make(chan struct{}), conn: pc}
	g.tr = &quic.Transport{Conn: gatedConn{pc, g}}
	cfg = cfg.Clone()
	cfg.ClientSessionCache = earlyNotice{cfg.ClientSessionCache, g}
	conn, err := g.tr.DialEarly(ctx, addr, cfg, q.Conf)
	if err != nil {
		g.Close()
		return nil, nil, err
	}
	return conn, g, nil
}
