package sessionid

import (
	"bufio"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// State describes a resumed connection, as crypto/tls's
// ConnectionState does a tls.Conn's.
type State struct {
	Version            uint16 // tls.VersionTLS12
	CipherSuite        uint16
	DidResume          bool // always true: a Conn exists only once resumed
	ExtendedMaster     bool // the session's master secret is RFC 7627's
	ServerName         string
	NegotiatedProtocol string
	// PeerCertificates and VerifiedChains are the session's, verified
	// in its full handshake: an abbreviated handshake sends none.
	PeerCertificates []*x509.Certificate
	VerifiedChains   [][]*x509.Certificate
	// SessionID is the ID the server resumed.
	SessionID []byte
}

// maxIdleRecords bounds the records in a row that carry no application
// data (empty records, warning alerts, HelloRequests) that one Read
// accepts, so that a server cannot keep a reader spinning.
const maxIdleRecords = 64

// Conn is a resumed TLS 1.2 connection: application data over the
// session's AEAD. Read and Write may be called concurrently with each
// other; Close may be called at any time.
type Conn struct {
	conn  net.Conn
	state State

	inMu    sync.Mutex
	br      *bufio.Reader
	in      direction
	hdr     [recordHeaderLen]byte
	rbuf    []byte // the current record's body
	pending []byte // plaintext of rbuf not yet returned
	readErr error

	outMu    sync.Mutex
	out      direction
	wbuf     []byte
	writeErr error
}

func newConn(conn net.Conn) *Conn {
	return &Conn{conn: conn, br: bufio.NewReaderSize(conn, 4096)}
}

// ConnectionState describes the connection.
func (c *Conn) ConnectionState() State { return c.state }

// NetConn is the connection the records travel on.
func (c *Conn) NetConn() net.Conn { return c.conn }

func (c *Conn) LocalAddr() net.Addr                { return c.conn.LocalAddr() }
func (c *Conn) RemoteAddr() net.Addr               { return c.conn.RemoteAddr() }
func (c *Conn) SetDeadline(t time.Time) error      { return c.conn.SetDeadline(t) }
func (c *Conn) SetReadDeadline(t time.Time) error  { return c.conn.SetReadDeadline(t) }
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.conn.SetWriteDeadline(t) }

// readRecord reads one record and opens it. Alerts are handled here:
// close_notify is io.EOF, a fatal alert an *AlertError, a warning alert
// is returned to the caller as an empty record of type alert.
func (c *Conn) readRecord() (uint8, []byte, error) {
	if _, err := io.ReadFull(c.br, c.hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("the server closed the connection in the middle of a record: %w", err)
		}
		return 0, nil, err
	}
	typ, version := c.hdr[0], uint16(c.hdr[1])<<8|uint16(c.hdr[2])
	n := int(c.hdr[3])<<8 | int(c.hdr[4])
	switch {
	case typ < recordChangeCipherSpec || typ > recordApplicationData:
		return 0, nil, &localError{alertUnexpectedMessage, fmt.Errorf("record of unknown type %d from the server", typ)}
	case version>>8 != 3 || (c.in.keys != nil && version != versionTLS12):
		return 0, nil, &localError{alertProtocolVersion, fmt.Errorf("record of version %#04x from the server, not TLS 1.2", version)}
	case n > maxCiphertext:
		return 0, nil, &localError{alertRecordOverflow, fmt.Errorf("record of %d bytes from the server, more than TLS allows", n)}
	}
	if cap(c.rbuf) < n {
		c.rbuf = make([]byte, n, max(n, 1024))
	}
	c.rbuf = c.rbuf[:n]
	if _, err := io.ReadFull(c.br, c.rbuf); err != nil {
		return 0, nil, fmt.Errorf("the server closed the connection in the middle of a record: %w", err)
	}
	body, err := c.in.open(typ, c.rbuf)
	if err != nil {
		return 0, nil, err
	}
	if typ == recordAlert {
		if len(body) != 2 {
			return 0, nil, &localError{alertDecodeError, errors.New("malformed alert from the server")}
		}
		switch {
		case body[1] == alertCloseNotify:
			return 0, nil, io.EOF
		case body[0] == alertLevelWarning:
			return recordAlert, nil, nil
		default:
			return 0, nil, &AlertError{Alert: body[1]}
		}
	}
	return typ, body, nil
}

// Read reads application data. A HelloRequest (the server asking to
// renegotiate) is refused with a no_renegotiation warning alert, and
// reading goes on: RFC 5246 §7.4.1.1 lets a client decline.
func (c *Conn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	c.inMu.Lock()
	defer c.inMu.Unlock()
	for idle := 0; len(c.pending) == 0; idle++ {
		if c.readErr != nil {
			return 0, c.readErr
		}
		if idle == maxIdleRecords {
			c.fail(&localError{alertUnexpectedMessage, fmt.Errorf("%d records in a row without data from the server", idle)})
			continue
		}
		typ, body, err := c.readRecord()
		if err != nil {
			c.fail(err)
			continue
		}
		switch typ {
		case recordApplicationData:
			c.pending = body
		case recordAlert:
		case recordHandshake:
			if err := c.refuseRenegotiation(body); err != nil {
				c.fail(err)
			}
		default:
			c.fail(&localError{alertUnexpectedMessage, fmt.Errorf("unexpected record of type %d from the server", typ)})
		}
	}
	n := copy(b, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// refuseRenegotiation answers a record of HelloRequests; any other
// handshake message after the handshake is a protocol error.
func (c *Conn) refuseRenegotiation(body []byte) error {
	for len(body) > 0 {
		typ, msg, rest, ok := splitHandshake(body)
		if !ok || typ != typeHelloRequest || len(msg) != 0 {
			return &localError{alertUnexpectedMessage, errors.New("unexpected handshake message from the server after the handshake")}
		}
		body = rest
		if err := c.sendAlert(alertLevelWarning, alertNoRenegotiation); err != nil {
			return err
		}
	}
	return nil
}

// fail records a read error; a local one is told to the server by its
// fatal alert.
func (c *Conn) fail(err error) {
	var le *localError
	if errors.As(err, &le) {
		c.sendAlert(alertLevelFatal, le.alert)
	}
	c.readErr = err
}

// Write writes application data in records of at most 16 KiB.
func (c *Conn) Write(b []byte) (int, error) {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	if c.writeErr != nil {
		return 0, c.writeErr
	}
	written := 0
	for len(b) > 0 {
		// Up to four records per write to the connection.
		c.wbuf = c.wbuf[:0]
		chunk := b[:min(len(b), 4*maxPlaintext)]
		for rest := chunk; len(rest) > 0; {
			frag := rest[:min(len(rest), maxPlaintext)]
			var err error
			if c.wbuf, err = c.out.appendRecord(c.wbuf, recordApplicationData, versionTLS12, frag); err != nil {
				c.writeErr = err
				return written, err
			}
			rest = rest[len(frag):]
		}
		if _, err := c.conn.Write(c.wbuf); err != nil {
			c.writeErr = err
			return written, err
		}
		written += len(chunk)
		b = b[len(chunk):]
	}
	return written, nil
}

// sendAlert writes one alert record, protected once this side's keys
// are in use.
func (c *Conn) sendAlert(level, alert uint8) error {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	if c.writeErr != nil {
		return c.writeErr
	}
	rec, err := c.out.appendRecord(nil, recordAlert, versionTLS12, []byte{level, alert})
	if err == nil {
		_, err = c.conn.Write(rec)
	}
	if err != nil || level == alertLevelFatal {
		c.writeErr = errors.New("the connection was closed after a fatal TLS alert")
		if err != nil {
			c.writeErr = err
		}
	}
	return err
}

// Close sends close_notify (without waiting for the server's) and
// closes the connection.
func (c *Conn) Close() error {
	// A write stuck on a full socket must not hold Close up for ever.
	c.conn.SetWriteDeadline(time.Now().Add(time.Second))
	c.sendAlert(alertLevelWarning, alertCloseNotify)
	return c.conn.Close()
}
