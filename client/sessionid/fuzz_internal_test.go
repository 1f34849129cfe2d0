package sessionid

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"testing"
	"time"
)

// streamConn is a net.Conn that reads a fixed byte stream and discards
// what is written.
type streamConn struct {
	r     *bytes.Reader
	reads int
}

func (c *streamConn) Read(b []byte) (int, error) {
	c.reads++
	return c.r.Read(b)
}
func (c *streamConn) Write(b []byte) (int, error)      { return len(b), nil }
func (c *streamConn) Close() error                     { return nil }
func (c *streamConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *streamConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *streamConn) SetDeadline(time.Time) error      { return nil }
func (c *streamConn) SetReadDeadline(time.Time) error  { return nil }
func (c *streamConn) SetWriteDeadline(time.Time) error { return nil }

// fuzzSession is a fixed session, so that seeds can echo its ID.
var fuzzSession = &Session{
	id: bytes.Repeat([]byte{0x5e}, 32), masterSecret: bytes.Repeat([]byte{0x11}, masterSecretLen),
	suite: tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, ems: true, serverName: "localhost",
}

func seedServerHello(sessionID []byte, ems bool) []byte {
	ts := &testServer{session: &Session{suite: fuzzSession.suite, ems: ems}}
	return ts.serverHello(bytes.Repeat([]byte{7}, randomLen), sessionID)
}

func FuzzParseServerHello(f *testing.F) {
	f.Add(seedServerHello(fuzzSession.id, true)[4:])
	f.Add(seedServerHello(nil, false)[4:])
	f.Add([]byte{3, 3})
	f.Fuzz(func(t *testing.T, body []byte) {
		sh, err := parseServerHello(body)
		if err == nil && (len(sh.random) != randomLen || len(sh.sessionID) > 32 || len(sh.extensions) > len(body)/4) {
			t.Fatalf("accepted a ServerHello with random %d bytes, ID %d bytes, %d extensions", len(sh.random), len(sh.sessionID), len(sh.extensions))
		}
	})
}

func FuzzFirstHandshakeMessage(f *testing.F) {
	var d direction
	rec, _ := d.appendRecord(nil, recordHandshake, versionTLS12, seedServerHello(fuzzSession.id, true))
	f.Add(rec)
	// The same hello over two records, then a ChangeCipherSpec.
	two, _ := d.appendRecord(nil, recordHandshake, versionTLS12, rec[5:20])
	two, _ = d.appendRecord(two, recordHandshake, versionTLS12, rec[20:])
	two, _ = d.appendRecord(two, recordChangeCipherSpec, versionTLS12, []byte{1})
	f.Add(two)
	f.Fuzz(func(t *testing.T, stream []byte) {
		typ, body, err := firstHandshakeMessage(stream)
		if err == nil && len(body)+4 > len(stream) {
			t.Fatalf("message of type %d with %d bytes from a %d-byte stream", typ, len(body), len(stream))
		}
	})
}

func FuzzParseKeyLogLine(f *testing.F) {
	f.Add([]byte(fmt.Sprintf("CLIENT_RANDOM %x %x\n", bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 48))))
	f.Add([]byte("CLIENT_TRAFFIC_SECRET_0 00 00\n"))
	f.Fuzz(func(t *testing.T, line []byte) {
		cr, ms, err := parseKeyLogLine(line)
		if err == nil && (len(cr) != randomLen || len(ms) != masterSecretLen) {
			t.Fatalf("client random %d bytes, master secret %d bytes", len(cr), len(ms))
		}
	})
}

// fuzzConn is a resumed connection's read side with fixed keys.
func fuzzConn(stream []byte, suiteID uint16) (*Conn, *streamConn) {
	sc := &streamConn{r: bytes.NewReader(stream)}
	c := newConn(sc)
	st, _ := suiteByID(suiteID)
	_, server, _ := st.expandKeys(fuzzSession.masterSecret, make([]byte, 32), make([]byte, 32))
	c.in = direction{suite: st, keys: &server}
	return c, sc
}

// FuzzRecords reads application data from an arbitrary stream: no
// panic, and no more records than the stream can hold.
func FuzzRecords(f *testing.F) {
	for _, id := range SupportedSuites()[:1] {
		st, _ := suiteByID(id)
		_, server, _ := st.expandKeys(fuzzSession.masterSecret, make([]byte, 32), make([]byte, 32))
		d := direction{suite: st, keys: &server}
		rec, _ := d.appendRecord(nil, recordApplicationData, versionTLS12, []byte("hello"))
		rec, _ = d.appendRecord(rec, recordHandshake, versionTLS12, []byte{0, 0, 0, 0})
		rec, _ = d.appendRecord(rec, recordAlert, versionTLS12, []byte{1, 0})
		f.Add(rec, uint8(0))
	}
	f.Add([]byte{23, 3, 3, 0, 0}, uint8(4))
	f.Fuzz(func(t *testing.T, stream []byte, suiteIndex uint8) {
		ids := SupportedSuites()
		c, sc := fuzzConn(stream, ids[int(suiteIndex)%len(ids)])
		buf := make([]byte, 512)
		for i := 0; ; i++ {
			if i > len(stream)+1 {
				t.Fatalf("%d reads from a %d-byte stream", i, len(stream))
			}
			if _, err := c.Read(buf); err != nil {
				break
			}
		}
		if sc.reads > len(stream)+2 {
			t.Fatalf("%d reads of the connection for a %d-byte stream", sc.reads, len(stream))
		}
	})
}

// FuzzResume runs the abbreviated handshake against an arbitrary server
// flight: it must end with an error or a connection, never a panic, and
// never a connection without the server's Finished.
func FuzzResume(f *testing.F) {
	var d direction
	sh, _ := d.appendRecord(nil, recordHandshake, versionTLS12, seedServerHello(fuzzSession.id, true))
	ccs, _ := d.appendRecord(sh, recordChangeCipherSpec, versionTLS12, []byte{1})
	f.Add(ccs)
	f.Add(append(ccs, recordHandshake, 3, 3, 0, 40))
	miss, _ := d.appendRecord(nil, recordHandshake, versionTLS12, seedServerHello(bytes.Repeat([]byte{1}, 32), true))
	f.Add(miss)
	f.Fuzz(func(t *testing.T, flight []byte) {
		sc := &streamConn{r: bytes.NewReader(flight)}
		c, err := Resume(context.Background(), sc, fuzzSession)
		if err == nil {
			// The Finished needs the client's random, which the
			// fuzzer cannot know.
			t.Fatalf("resumed with a flight the fuzzer made: %+v", c.ConnectionState())
		}
		if sc.reads > len(flight)+2 {
			t.Fatalf("%d reads for a %d-byte flight", sc.reads, len(flight))
		}
	})
}
