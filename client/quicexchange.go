package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/quic-go/qpack"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/quicvarint"

	"github.com/tlsbench/tlsbench/internal/connerr"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// QUICDialer reaches a server over QUIC (HandshakeCase.QUIC).
type QUICDialer struct {
	// Addr is the server's UDP address, host:port.
	Addr string
	// EarlyData sends the request as early data (0-RTT) on connections
	// that resume a session whose ticket allows it. Sessions whose
	// tickets do not allow it resume in one round trip, as without it:
	// the record counts the early data actually offered.
	EarlyData bool
	// Request is the exchange after the handshake: RequestPing (default)
	// is tlsbench's own (tlsconf.ALPNQUICPing: one byte on a stream,
	// echoed, the stream read to its end, which the built-in server
	// sends after its session ticket); RequestHTTP and RequestHTTPGet
	// are a HEAD or GET / over HTTP/3 (ALPN h3), whose answer is the
	// response head, for other servers.
	Request Request
	// Host is the authority of HTTP requests (default Addr).
	Host string

	Conf *quic.Config
}

// ALPN is the application protocol of the dialer's request.
func (q *QUICDialer) ALPN() string {
	if q.HTTP() {
		return "h3"
	}
	return tlsconf.ALPNQUICPing
}

func (q *QUICDialer) HTTP() bool { return q.Request == RequestHTTP || q.Request == RequestHTTPGet }

// QUICKind is connerr.Kind with the peer's TLS alerts, which QUIC
// carries as CRYPTO_ERROR codes (RFC 9001, section 4.8), and its
// CONNECTION_REFUSED.
func QUICKind(err error) string {
	var te *quic.TransportError
	if errors.As(err, &te) && te.Remote && te.ErrorCode.IsCryptoError() {
		return "alert:" + strings.TrimPrefix(tls.AlertError(te.ErrorCode-0x100).Error(), "tls: ")
	}
	if errors.As(err, &te) && te.Remote && te.ErrorCode == quic.ConnectionRefused {
		// The server refused the connection (the built-in one does when
		// too many wait for their ClientHello): refused, as over TCP.
		return connerr.Refused
	}
	if errors.Is(err, ErrBadEcho) {
		return "bad-echo"
	}
	return connerr.Kind(err)
}

// CloseCode is the application error code of a normal close: 0 for
// tlsbench's own protocol, H3_NO_ERROR for HTTP/3.
func (q *QUICDialer) CloseCode() quic.ApplicationErrorCode {
	if q.HTTP() {
		return h3NoError
	}
	return 0
}

// quicExchange is a request over a QUIC connection: send writes it and
// ends the client's side (in early data when the handshake is not over),
// answer reads the first byte of the answer, finish the rest.
type quicExchange interface {
	Send(ctx context.Context, conn *quic.Conn) error
	Answer() error
	Finish() error
}

func (q *QUICDialer) NewExchange() quicExchange {
	if q.HTTP() {
		method := http.MethodHead
		if q.Request == RequestHTTPGet {
			method = http.MethodGet
		}
		return &h3Exchange{host: q.Host, method: method}
	}
	return &pingExchange{}
}

// pingExchange is tlsbench's own (tlsconf.ALPNQUICPing).
type pingExchange struct{ str *quic.Stream }

func (p *pingExchange) Send(_ context.Context, conn *quic.Conn) error {
	str, err := conn.OpenStream()
	if err != nil {
		return err
	}
	p.str = str
	if _, err := str.Write([]byte{'p'}); err != nil {
		return err
	}
	return str.Close()
}

func (p *pingExchange) Answer() error {
	var b [1]byte
	if _, err := io.ReadFull(p.str, b[:]); err != nil {
		return err
	}
	if b[0] != 'p' {
		return fmt.Errorf("%w: ping answered with %q, not echoed", ErrBadEcho, b[0])
	}
	return nil
}

// Finish reads to the end of the stream, which the server sends once its
// handshake is complete and its session ticket sent: the ticket is then
// read and stored.
func (p *pingExchange) Finish() error {
	n, err := io.Copy(io.Discard, io.LimitReader(p.str, maxAnswer))
	if err == nil && n > 0 {
		return fmt.Errorf("%w: %d bytes after the echo", ErrBadEcho, n)
	}
	return err
}

// h3Exchange is a HEAD or GET / over HTTP/3 (RFC 9114), spoken here
// rather than through quic-go's http3.ClientConn, whose own goroutine
// opens the control stream whenever it gets to run: after early data
// was rejected, that may be on the connection's new streams, beside the
// control stream of the request sent again, and the server closes the
// connection for the second (H3_STREAM_CREATION_ERROR). Here the streams
// are opened in order, on the connection's goroutine. The field section
// uses QPACK's static table only, so there are no QPACK streams.
type h3Exchange struct {
	host, method string
	str          *quic.Stream
}

// HTTP/3 frame and stream types.
const (
	h3FrameHeaders   = 0x01
	h3FrameSettings  = 0x04
	h3StreamControl  = 0x00
	h3NoError        = 0x100
	h3MaxHeaderBytes = maxAnswer
)

func (h *h3Exchange) Send(_ context.Context, conn *quic.Conn) error {
	ctrl, err := conn.OpenUniStream()
	if err != nil {
		return err
	}
	// The control stream's type, then its first frame: SETTINGS, empty.
	if _, err := ctrl.Write([]byte{h3StreamControl, h3FrameSettings, 0}); err != nil {
		return err
	}
	str, err := conn.OpenStream()
	if err != nil {
		return err
	}
	h.str = str
	var fields bytes.Buffer
	enc := qpack.NewEncoder(&fields)
	for _, f := range []qpack.HeaderField{{Name: ":method", Value: h.method}, {Name: ":scheme", Value: "https"},
		{Name: ":authority", Value: h.host}, {Name: ":path", Value: "/"}, {Name: "user-agent", Value: "tlsbench"}} {
		if err := enc.WriteField(f); err != nil {
			return err
		}
	}
	frame := quicvarint.Append(nil, h3FrameHeaders)
	frame = quicvarint.Append(frame, uint64(fields.Len()))
	if _, err := str.Write(append(frame, fields.Bytes()...)); err != nil {
		return err
	}
	return str.Close()
}

// answer reads the response's HEADERS frame, skipping frames of types it
// does not know (RFC 9114 reserves some to be ignored): any status will
// do, the answer only proves the connection carries data.
func (h *h3Exchange) Answer() error {
	r := quicvarint.NewReader(h.str)
	for {
		typ, err := quicvarint.Read(r)
		if err != nil {
			return err
		}
		n, err := quicvarint.Read(r)
		switch {
		case err != nil:
			return err
		case n > h3MaxHeaderBytes:
			return fmt.Errorf("%w: a %d-byte HTTP/3 frame (type %#x) before the response head", ErrBadEcho, n, typ)
		case typ == 0x00 || typ == 0x03 || typ == 0x05 || typ == 0x07 || typ == 0x0d:
			// DATA, CANCEL_PUSH, PUSH_PROMISE, GOAWAY, MAX_PUSH_ID.
			return fmt.Errorf("%w: HTTP/3 frame type %#x before the response head", ErrBadEcho, typ)
		}
		if _, err := io.CopyN(io.Discard, h.str, int64(n)); err != nil {
			return err
		}
		if typ == h3FrameHeaders {
			return nil
		}
	}
}

func (h *h3Exchange) Finish() error {
	_, err := io.Copy(io.Discard, io.LimitReader(h.str, maxAnswer))
	return err
}

// TicketNotice is a connection's session cache that tells when a session
// was stored in the case's.
type TicketNotice struct {
	tls.ClientSessionCache
	once sync.Once
	got  chan struct{}
}

// WithTicketNotice returns a copy of cfg whose session cache notices
// the connection's ticket.
func WithTicketNotice(cfg *tls.Config) (*tls.Config, *TicketNotice) {
	t := &TicketNotice{ClientSessionCache: cfg.ClientSessionCache, got: make(chan struct{})}
	cfg = cfg.Clone()
	cfg.ClientSessionCache = t
	return cfg, t
}

func (t *TicketNotice) Put(key string, cs *tls.ClientSessionState) {
	t.ClientSessionCache.Put(key, cs)
	if cs != nil {
		t.once.Do(func() { close(t.got) })
	}
}

// errNoTicket is a connection whose server sent no session ticket
// before the connection's time was up.
var errNoTicket = errors.New("no session ticket arrived after the answer")

// wait waits until the connection's session ticket has been stored.
func (t *TicketNotice) Wait(ctx context.Context, conn *quic.Conn) error {
	select {
	case <-t.got:
		return nil
	case <-conn.Context().Done():
		return fmt.Errorf("%w: %w", errNoTicket, context.Cause(conn.Context()))
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", errNoTicket, ctx.Err())
	}
}
