package sessionid

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"testing"

	"golang.org/x/crypto/cryptobyte"
)

// testServer is a record-level TLS 1.2 server that only resumes: it
// knows one session (ID, master secret, suite, EMS) and answers a
// ClientHello offering it with the abbreviated handshake, then echoes
// what it reads. Its knobs make it misbehave the ways a client must
// catch. It is built from the package's own record layer and PRF, which
// the real peers (openssl, nginx) check independently.
type testServer struct {
	session *Session
	// newSession answers with another session ID: a cache miss.
	newSession bool
	// badFinished sends a Finished over the wrong transcript.
	badFinished bool
	// extraExtension sends an extension the client did not offer.
	extraExtension bool
	// afterHandshake, when set, runs instead of the echo loop.
	afterHandshake func(sc *Conn) error

	// offered are the extension types of the ClientHello it read, and
	// alpn the protocol it offered (echoed back when set).
	offered []uint16
	alpn    string
}

// testSession is a session with a random master secret.
func testSession(t testing.TB, suite uint16, ems bool) *Session {
	t.Helper()
	s := &Session{id: make([]byte, 32), masterSecret: make([]byte, masterSecretLen), suite: suite, ems: ems,
		serverName: "localhost", alpn: "http/1.1"}
	rand.Read(s.id)
	rand.Read(s.masterSecret)
	return s
}

// serve runs one connection to its end.
func (ts *testServer) serve(conn net.Conn) error {
	defer conn.Close()
	sc := newConn(conn)
	chMsg, clientRandom, sessionID, err := ts.readClientHello(sc)
	if err != nil {
		return err
	}
	s := ts.session
	st, err := suiteByID(s.suite)
	if err != nil {
		return err
	}
	serverRandom := make([]byte, randomLen)
	rand.Read(serverRandom)
	echo := sessionID
	if ts.newSession || !bytes.Equal(sessionID, s.id) {
		echo = make([]byte, 32)
		rand.Read(echo)
	}
	shMsg := ts.serverHello(serverRandom, echo)
	out, _ := sc.out.appendRecord(nil, recordHandshake, versionTLS12, shMsg)
	if !bytes.Equal(echo, sessionID) {
		// A new session would go on with a Certificate; the client
		// must stop before it.
		_, err := conn.Write(out)
		io.Copy(io.Discard, conn)
		return err
	}
	clientKeys, serverKeys, err := st.expandKeys(s.masterSecret, clientRandom, serverRandom)
	if err != nil {
		return err
	}
	transcript := append(chMsg, shMsg...)
	verify := finished(st.hash(), s.masterSecret, labelServerFinished, transcript)
	if ts.badFinished {
		verify = finished(st.hash(), s.masterSecret, labelServerFinished, shMsg)
	}
	serverFin := append([]byte{typeFinished, 0, 0, verifyDataLen}, verify...)
	out, _ = sc.out.appendRecord(out, recordChangeCipherSpec, versionTLS12, []byte{1})
	sc.out = direction{suite: st, keys: &serverKeys}
	out, _ = sc.out.appendRecord(out, recordHandshake, versionTLS12, serverFin)
	if _, err := conn.Write(out); err != nil {
		return err
	}
	if err := sc.readChangeCipherSpec(); err != nil {
		return err
	}
	sc.in = direction{suite: st, keys: &clientKeys}
	clientFin, err := sc.readFinished()
	if err != nil {
		return err
	}
	transcript = append(transcript, serverFin...)
	if !bytes.Equal(clientFin[4:], finished(st.hash(), s.masterSecret, labelClientFinished, transcript)) {
		return errors.New("test server: the client's Finished does not verify")
	}
	if ts.afterHandshake != nil {
		return ts.afterHandshake(sc)
	}
	_, err = io.Copy(sc, sc)
	return err
}

func (ts *testServer) serverHello(random, sessionID []byte) []byte {
	var b cryptobyte.Builder
	b.AddUint8(typeServerHello)
	b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) {
		b.AddUint16(versionTLS12)
		b.AddBytes(random)
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(sessionID) })
		b.AddUint16(ts.session.suite)
		b.AddUint8(0)
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			b.AddUint16(extRenegotiationInf)
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddUint8(0) })
			if ts.session.ems {
				b.AddUint16(extExtendedMaster)
				b.AddUint16(0)
			}
			if ts.alpn != "" {
				b.AddUint16(extALPN)
				b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
					b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
						b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes([]byte(ts.alpn)) })
					})
				})
			}
			if ts.extraExtension {
				b.AddUint16(extSessionTicket)
				b.AddUint16(0)
			}
		})
	})
	return b.BytesOrPanic()
}

// readClientHello reads the client's hello and returns the whole
// message, its random and the session ID it offers; it notes the
// extensions offered and the ALPN protocol.
func (ts *testServer) readClientHello(sc *Conn) (msg, random, sessionID []byte, err error) {
	typ, body, err := sc.readRecord()
	if err != nil {
		return nil, nil, nil, err
	}
	mtyp, ch, rest, ok := splitHandshake(body)
	if typ != recordHandshake || !ok || mtyp != typeClientHello || len(rest) != 0 {
		return nil, nil, nil, errors.New("test server: no ClientHello alone in the first record")
	}
	s := cryptobyte.String(ch)
	var version uint16
	var sid, suites, comp, exts cryptobyte.String
	if !s.ReadUint16(&version) || !s.ReadBytes(&random, randomLen) || !s.ReadUint8LengthPrefixed(&sid) ||
		!s.ReadUint16LengthPrefixed(&suites) || !s.ReadUint8LengthPrefixed(&comp) ||
		!s.ReadUint16LengthPrefixed(&exts) || !s.Empty() {
		return nil, nil, nil, errors.New("test server: malformed ClientHello")
	}
	for !exts.Empty() {
		var typ uint16
		var data cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&data) {
			return nil, nil, nil, errors.New("test server: malformed ClientHello extensions")
		}
		ts.offered = append(ts.offered, typ)
		var list, name cryptobyte.String
		if typ == extALPN && data.ReadUint16LengthPrefixed(&list) && list.ReadUint8LengthPrefixed(&name) {
			ts.alpn = string(name)
		}
	}
	return bytes.Clone(body), bytes.Clone(random), bytes.Clone(sid), nil
}

// pair connects a client conn to ts over loopback TCP (net.Pipe would
// deadlock: both ends write their flight before reading) and returns
// the client's end and the server's result.
func pair(t testing.TB, ts *testServer) (net.Conn, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		defer ln.Close()
		c, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		done <- ts.serve(c)
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return c, done
}

func suiteName(id uint16) string { return tls.CipherSuiteName(id) }
