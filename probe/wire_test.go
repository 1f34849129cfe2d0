package probe

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/testpki"
)

// record wraps payload in one TLS record of type typ.
func record(typ byte, payload []byte) []byte {
	b := []byte{typ, 3, 3, 0, 0}
	binary.BigEndian.PutUint16(b[3:], uint16(len(payload)))
	return append(b, payload...)
}

// handshakeMsg is a handshake message of type typ with body.
func handshakeMsg(typ byte, body []byte) []byte {
	n := len(body)
	return append([]byte{typ, byte(n >> 16), byte(n >> 8), byte(n)}, body...)
}

func nst12(lifetime uint32, ticket string) []byte {
	body := binary.BigEndian.AppendUint32(nil, lifetime)
	body = binary.BigEndian.AppendUint16(body, uint16(len(ticket)))
	return handshakeMsg(msgNewSessionTicket, append(body, ticket...))
}

func serverHello(sidLen int) []byte {
	body := make([]byte, 2+32)
	body = append(body, byte(sidLen))
	body = append(body, make([]byte, sidLen)...)
	body = append(body, 0x13, 0x01, 0) // cipher suite, compression
	return handshakeMsg(msgServerHello, body)
}

func TestParseServerFlight(t *testing.T) {
	t.Parallel()
	sh := serverHello(32)
	ticket := nst12(300, "opaque-ticket")
	// The ticket message split across two records, then CCS, then an
	// "encrypted" handshake record that must be ignored.
	var in []byte
	in = append(in, record(recordHandshake, sh)...)
	in = append(in, record(recordHandshake, ticket[:7])...)
	in = append(in, record(recordHandshake, ticket[7:])...)
	in = append(in, record(recordChangeCipherSpec, []byte{1})...)
	in = append(in, record(recordHandshake, nst12(999, "after-ccs"))...)
	f := parseServerFlight(in)
	if f.SessionIDLen != 32 {
		t.Errorf("session ID length %d, want 32", f.SessionIDLen)
	}
	if len(f.TicketLifetimes) != 1 || f.TicketLifetimes[0] != 300 {
		t.Errorf("lifetimes %v, want [300]", f.TicketLifetimes)
	}

	// An empty ticket is counted apart; a truncated record ends parsing.
	in = append(record(recordHandshake, nst12(0, "")), record(recordHandshake, nst12(5, "x"))[:8]...)
	f = parseServerFlight(in)
	if f.EmptyTickets != 1 || len(f.TicketLifetimes) != 0 || f.SessionIDLen != -1 {
		t.Errorf("flight %+v", f)
	}
}

// helloCapture is a net.Conn that records what the client writes and
// fails every read, so that a handshake stops after the ClientHello.
type helloCapture struct {
	net.Conn
	out []byte
}

func (c *helloCapture) Write(p []byte) (int, error) { c.out = append(c.out, p...); return len(p), nil }
func (c *helloCapture) Read([]byte) (int, error)    { return 0, io.EOF }
func (c *helloCapture) Close() error                { return nil }
func (c *helloCapture) SetDeadline(time.Time) error { return nil }

// TestParseClientHelloOffer checks the offer detection on ClientHellos
// that crypto/tls really writes, with and without a session to offer.
func TestParseClientHelloOffer(t *testing.T) {
	t.Parallel()
	scfg, ca := testpki.Server(t)
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		// A real session from an in-memory handshake.
		rec := &recorder{}
		cfg := &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", MinVersion: v, MaxVersion: v, ClientSessionCache: rec}
		cc, sc := net.Pipe()
		go func() {
			s := tls.Server(sc, scfg)
			if s.Handshake() == nil {
				s.Write([]byte{0})
			}
			s.Close()
		}()
		c := tls.Client(cc, cfg)
		if err := c.HandshakeContext(context.Background()); err != nil {
			t.Fatal(err)
		}
		io.ReadFull(c, make([]byte, 1))
		cc.Close() // not c.Close: its close_notify would wait for a reader on the pipe
		sessions := rec.stored()
		if len(sessions) != 1 {
			t.Fatalf("TLS %x: %d sessions stored, want 1", v, len(sessions))
		}

		for _, offer := range []bool{false, true} {
			r := &recorder{}
			if offer {
				r.offer = sessions[0]
			}
			cfg := cfg.Clone()
			cfg.ClientSessionCache = r
			hc := &helloCapture{}
			tls.Client(hc, cfg).Handshake()
			got, ok := parseClientHelloOffer(hc.out)
			if !ok {
				t.Fatalf("TLS %x: ClientHello not parsed (%d bytes)", v, len(hc.out))
			}
			want := helloOffer{}
			if offer && v == tls.VersionTLS12 {
				want.Ticket = true
			}
			if offer && v == tls.VersionTLS13 {
				want.PSK = true
			}
			if got != want {
				t.Errorf("TLS %x, offer %v: parsed %+v, want %+v", v, offer, got, want)
			}
		}
	}
}

// TestSessionTimes pins the parse of crypto/tls's session encoding: a
// TLS 1.3 session from crypto/tls's own server (lifetime 7 days) under a
// frozen clock.
func TestSessionTimes(t *testing.T) {
	t.Parallel()
	scfg, ca := testpki.Server(t)
	t0 := time.Unix(1_800_000_000, 0)
	scfg.Time = func() time.Time { return t0 }
	rec := &recorder{}
	cfg := &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", MinVersion: tls.VersionTLS13, ClientSessionCache: rec,
		Time: func() time.Time { return t0 }}
	cc, sc := net.Pipe()
	go func() {
		s := tls.Server(sc, scfg)
		if s.Handshake() == nil {
			s.Write([]byte{0})
		}
		s.Close()
	}()
	c := tls.Client(cc, cfg)
	if err := c.Handshake(); err != nil {
		t.Fatal(err)
	}
	io.ReadFull(c, make([]byte, 1))
	cc.Close()
	st := c.ConnectionState()
	s := rec.stored()
	if len(s) != 1 {
		t.Fatalf("%d sessions", len(s))
	}
	created, useBy, err := sessionTimes(s[0], st.Version, st.CipherSuite)
	if err != nil {
		t.Fatal(err)
	}
	if created != uint64(t0.Unix()) || useBy-created != 7*24*3600 {
		t.Errorf("created %d, use by %d; want %d and 7 days later", created, useBy, t0.Unix())
	}
	if _, err := ticketLifetime(s[0], tls.VersionTLS12, st.CipherSuite); err == nil {
		t.Error("a version mismatch was not detected")
	}
}

// FuzzWire feeds arbitrary bytes to the wire parsers: they must never
// panic, whatever a server (or a middlebox) sends.
func FuzzWire(f *testing.F) {
	f.Add(record(recordHandshake, nst12(300, "t")))
	f.Add(record(recordHandshake, serverHello(32)))
	f.Add([]byte{22, 3, 3, 0, 4, 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		parseServerFlight(b)
		parseClientHelloOffer(b)
	})
}
