package sessionid

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"
)

// maxHandshakeMessage bounds a handshake message the resuming client
// buffers: a ServerHello is far smaller.
const maxHandshakeMessage = 1 << 16

// Resume runs an abbreviated TLS 1.2 handshake on conn that offers the
// session s by its ID (RFC 5246 §7.3) and no session ticket, and returns
// the resumed connection once the server's Finished has been verified.
//
// When the server starts a new session instead, Resume closes conn and
// returns ErrNotResumed. A session whose suite cannot be resumed is
// ErrUnsupportedSuite before anything is sent. On every error conn is
// closed. ctx bounds the handshake, as conn's deadlines do; once Resume
// returns, ctx no longer matters.
func Resume(ctx context.Context, conn net.Conn, s *Session) (*Conn, error) {
	st, err := suiteByID(s.suite)
	if err != nil {
		conn.Close()
		return nil, err
	}
	// The context ending (its deadline included) interrupts the
	// handshake through a deadline in the past; the caller's own
	// deadlines are left as they are.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	c := newConn(conn)
	err = c.resume(st, s)
	if !stop() {
		// The interruption may have come after the last step: the
		// connection is unusable either way.
		if err == nil {
			err = ctx.Err()
		} else {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
	}
	if err != nil {
		var le *localError
		if errors.As(err, &le) {
			c.sendAlert(alertLevelFatal, le.alert)
		}
		conn.Close()
		return nil, err
	}
	return c, nil
}

// resume is the abbreviated handshake: ClientHello; ServerHello,
// ChangeCipherSpec, Finished from the server; ChangeCipherSpec, Finished
// back (RFC 5246 §7.3, Figure 2).
func (c *Conn) resume(st *suite, s *Session) error {
	random := make([]byte, randomLen)
	rand.Read(random)
	ch, offered, err := marshalClientHello(helloParams{
		random: random, sessionID: s.id, suite: s.suite,
		serverName: s.serverName, ems: s.ems, alpn: s.alpn,
	})
	if err != nil {
		return err
	}
	// The first record says TLS 1.0, as clients do for servers that
	// mishandle a newer record version before the hello is read.
	rec, _ := c.out.appendRecord(nil, recordHandshake, 0x0301, ch)
	if _, err := c.conn.Write(rec); err != nil {
		return err
	}
	shMsg, sh, err := c.readServerHello()
	if err != nil {
		return err
	}
	if err := checkResumed(sh, s, offered); err != nil {
		return err
	}
	clientKeys, serverKeys, err := st.expandKeys(s.masterSecret, random, sh.random)
	if err != nil {
		return err
	}
	transcript := append(ch, shMsg...)
	if err := c.readChangeCipherSpec(); err != nil {
		return err
	}
	c.in = direction{suite: st, keys: &serverKeys}
	serverFin, err := c.readFinished()
	if err != nil {
		return err
	}
	want := finished(st.hash(), s.masterSecret, labelServerFinished, transcript)
	if !hmac.Equal(serverFin[4:], want) {
		return &localError{alertDecryptError, ErrBadFinished}
	}
	transcript = append(transcript, serverFin...)
	clientFin := append([]byte{typeFinished, 0, 0, verifyDataLen},
		finished(st.hash(), s.masterSecret, labelClientFinished, transcript)...)
	out, _ := c.out.appendRecord(nil, recordChangeCipherSpec, versionTLS12, []byte{1})
	c.out = direction{suite: st, keys: &clientKeys}
	if out, err = c.out.appendRecord(out, recordHandshake, versionTLS12, clientFin); err != nil {
		return err
	}
	if _, err := c.conn.Write(out); err != nil {
		return err
	}
	c.state = State{
		Version: tls.VersionTLS12, CipherSuite: s.suite, DidResume: true, ExtendedMaster: s.ems,
		ServerName: s.serverName, NegotiatedProtocol: sh.alpn,
		PeerCertificates: s.peerCerts, VerifiedChains: s.chains, SessionID: slices.Clone(s.id),
	}
	return nil
}

// readServerHello reads the server's first message, which must be a
// ServerHello alone in its records: a resuming server sends its
// ChangeCipherSpec next. It returns the whole message and its parse.
func (c *Conn) readServerHello() ([]byte, *serverHello, error) {
	var msgs []byte
	for {
		typ, body, err := c.readRecord()
		if err != nil {
			return nil, nil, err
		}
		if typ != recordHandshake {
			return nil, nil, &localError{alertUnexpectedMessage, fmt.Errorf("record of type %d from the server before its ServerHello", typ)}
		}
		msgs = append(msgs, body...)
		if len(msgs) >= 4 && int(msgs[1])<<16|int(msgs[2])<<8|int(msgs[3]) > maxHandshakeMessage {
			return nil, nil, &localError{alertDecodeError, errors.New("handshake message from the server too long for a ServerHello")}
		}
		mtyp, body, rest, ok := splitHandshake(msgs)
		if !ok {
			continue
		}
		if mtyp != typeServerHello {
			return nil, nil, &localError{alertUnexpectedMessage, fmt.Errorf("handshake message of type %d from the server, not a ServerHello", mtyp)}
		}
		sh, err := parseServerHello(body)
		if err != nil {
			return nil, nil, &localError{alertDecodeError, fmt.Errorf("the server's ServerHello: %w", err)}
		}
		if sh.version != versionTLS12 {
			return nil, nil, &localError{alertProtocolVersion, fmt.Errorf("the server answered with version %#04x, not TLS 1.2", sh.version)}
		}
		sh.trailing = len(rest) > 0
		return msgs[:len(msgs)-len(rest)], sh, nil
	}
}

// checkResumed decides from the ServerHello whether the server resumed
// s, and refuses a resumption that differs from the session.
func checkResumed(sh *serverHello, s *Session, offered []uint16) error {
	if len(s.id) == 0 || !slices.Equal(sh.sessionID, s.id) {
		return ErrNotResumed
	}
	switch {
	case sh.suite != s.suite:
		return &localError{alertIllegalParameter, fmt.Errorf("the server resumed the session with the suite %s, not the session's %s",
			tls.CipherSuiteName(sh.suite), tls.CipherSuiteName(s.suite))}
	case sh.compression != 0:
		return &localError{alertIllegalParameter, errors.New("the server chose a compression method; none was offered")}
	case sh.ems != s.ems:
		// RFC 7627 §5.3: a session resumes only as it was made.
		return &localError{alertHandshakeFailure, fmt.Errorf("the server resumed the session with extended master secret %v, the session has %v", sh.ems, s.ems)}
	case len(sh.renegotiationInfo) != 0:
		return &localError{alertHandshakeFailure, errors.New("the server's renegotiation_info is not empty on a first handshake")}
	case sh.alpn != "" && sh.alpn != s.alpn:
		return &localError{alertIllegalParameter, fmt.Errorf("the server chose ALPN protocol %q, which was not offered", sh.alpn)}
	case sh.trailing:
		return &localError{alertUnexpectedMessage, errors.New("the server sent more handshake messages after resuming the session")}
	}
	for _, typ := range sh.extensions {
		if !slices.Contains(offered, typ) {
			return &localError{alertUnsupportedExtension, fmt.Errorf("the server sent extension %d, which was not offered", typ)}
		}
	}
	return nil
}

// readChangeCipherSpec reads the server's ChangeCipherSpec.
func (c *Conn) readChangeCipherSpec() error {
	typ, body, err := c.readRecord()
	switch {
	case err != nil:
		return err
	case typ != recordChangeCipherSpec:
		return &localError{alertUnexpectedMessage, fmt.Errorf("record of type %d from the server, not its ChangeCipherSpec", typ)}
	case len(body) != 1 || body[0] != 1:
		return &localError{alertDecodeError, errors.New("malformed ChangeCipherSpec from the server")}
	}
	return nil
}

// readFinished reads the server's encrypted Finished, alone in its
// record, and returns the whole message.
func (c *Conn) readFinished() ([]byte, error) {
	typ, body, err := c.readRecord()
	switch {
	case err != nil:
		return nil, err
	case typ != recordHandshake:
		return nil, &localError{alertUnexpectedMessage, fmt.Errorf("record of type %d from the server, not its Finished", typ)}
	}
	mtyp, msg, rest, ok := splitHandshake(body)
	if !ok || mtyp != typeFinished || len(msg) != verifyDataLen || len(rest) != 0 {
		return nil, &localError{alertUnexpectedMessage, errors.New("the server's Finished is malformed or not alone in its record")}
	}
	return slices.Clone(body), nil
}
