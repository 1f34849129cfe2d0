package probe

import (
	"encoding/binary"
	"net"
	"sync"

	"golang.org/x/crypto/cryptobyte"
)

// TLS record content types and handshake message types the wire
// observer understands (RFC 5246 and RFC 8446).
const (
	recordChangeCipherSpec = 20
	recordHandshake        = 22

	msgClientHello      = 1
	msgServerHello      = 2
	msgNewSessionTicket = 4

	extSessionTicket = 35 // RFC 5077
	extPreSharedKey  = 41 // RFC 8446
)

// wireLimit bounds what the observer keeps of each direction: a
// ClientHello and a server's first flights (certificate chains included)
// fit comfortably.
const wireLimit = 256 << 10

// wireConn sits between crypto/tls and the TCP connection and keeps a copy
// of the plaintext part of the handshake: what the client wrote first (its
// ClientHello) and what it read until the handshake ended. crypto/tls does
// not say whether it offered a cached session, nor TLS 1.2 ticket lifetime
// hints, but both are in the clear on the wire: the ClientHello's
// session_ticket or pre_shared_key extension, and the TLS 1.2
// NewSessionTicket message, which precedes the server's ChangeCipherSpec.
type wireConn struct {
	net.Conn

	mu      sync.Mutex
	out, in []byte
	stopped bool
}

func (w *wireConn) Read(p []byte) (int, error) {
	n, err := w.Conn.Read(p)
	if n > 0 {
		w.mu.Lock()
		if !w.stopped {
			w.in = appendLimited(w.in, p[:n])
		}
		w.mu.Unlock()
	}
	return n, err
}

func (w *wireConn) Write(p []byte) (int, error) {
	w.mu.Lock()
	if !w.stopped {
		w.out = appendLimited(w.out, p)
	}
	w.mu.Unlock()
	return w.Conn.Write(p)
}

// stop ends recording (after the handshake: what follows is encrypted).
func (w *wireConn) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
}

func (w *wireConn) observed() (out, in []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out, w.in
}

func appendLimited(b, p []byte) []byte {
	if room := wireLimit - len(b); room < len(p) {
		p = p[:max(room, 0)]
	}
	return append(b, p...)
}

// plaintextHandshake returns the handshake messages carried by the
// unencrypted records at the start of data: every handshake record up to
// the first ChangeCipherSpec (after which a TLS 1.2 peer encrypts, and a
// TLS 1.3 peer has been encrypting since its ServerHello). Each message is
// returned whole, type byte and length included.
func plaintextHandshake(data []byte) [][]byte {
	var hs []byte
	for len(data) >= 5 {
		typ := data[0]
		n := int(binary.BigEndian.Uint16(data[3:5]))
		if len(data) < 5+n {
			break
		}
		if typ == recordChangeCipherSpec {
			break
		}
		if typ != recordHandshake {
			// An alert or (TLS 1.3) encrypted application data: the
			// plaintext handshake is over.
			break
		}
		hs = append(hs, data[5:5+n]...)
		data = data[5+n:]
	}
	var msgs [][]byte
	for len(hs) >= 4 {
		n := int(hs[1])<<16 | int(hs[2])<<8 | int(hs[3])
		if len(hs) < 4+n {
			break
		}
		msgs = append(msgs, hs[:4+n])
		hs = hs[4+n:]
	}
	return msgs
}

// helloOffer describes what a ClientHello offered for resumption.
type helloOffer struct {
	// Ticket: a non-empty TLS 1.2 session_ticket extension.
	Ticket bool
	// PSK: a TLS 1.3 pre_shared_key extension.
	PSK bool
}

// parseClientHelloOffer reads the client's first handshake message and
// reports whether it offered a session. ok is false when the bytes do not
// hold a complete ClientHello.
func parseClientHelloOffer(out []byte) (o helloOffer, ok bool) {
	msgs := plaintextHandshake(out)
	if len(msgs) == 0 || msgs[0][0] != msgClientHello {
		return o, false
	}
	exts, ok := helloExtensions(msgs[0][4:], true)
	if !ok {
		return o, false
	}
	for _, e := range exts {
		switch e.typ {
		case extSessionTicket:
			o.Ticket = len(e.data) > 0
		case extPreSharedKey:
			o.PSK = true
		}
	}
	return o, true
}

type extension struct {
	typ  uint16
	data []byte
}

// helloExtensions parses the body of a ClientHello (client) or a
// ServerHello and returns its extensions.
func helloExtensions(b []byte, client bool) ([]extension, bool) {
	r := cryptobyte.String(b)
	var sid, suites, comp cryptobyte.String
	ok := r.Skip(2+32) && r.ReadUint8LengthPrefixed(&sid)
	if client {
		ok = ok && r.ReadUint16LengthPrefixed(&suites) && r.ReadUint8LengthPrefixed(&comp)
	} else {
		ok = ok && r.Skip(2+1) // cipher_suite, compression_method
	}
	if !ok {
		return nil, false
	}
	if r.Empty() {
		return nil, true // no extensions at all
	}
	var er cryptobyte.String
	if !r.ReadUint16LengthPrefixed(&er) {
		return nil, false
	}
	var exts []extension
	for !er.Empty() {
		var typ uint16
		var data cryptobyte.String
		if !er.ReadUint16(&typ) || !er.ReadUint16LengthPrefixed(&data) {
			return nil, false
		}
		exts = append(exts, extension{typ, data})
	}
	return exts, true
}

// serverFlight is what the plaintext part of a server's handshake showed.
type serverFlight struct {
	// SessionIDLen is the length of the session ID in the ServerHello
	// (-1 without a ServerHello).
	SessionIDLen int
	// TicketLifetimes are the lifetime hints of the TLS 1.2
	// NewSessionTicket messages, in seconds (0: unspecified).
	TicketLifetimes []uint32
	// EmptyTickets counts NewSessionTicket messages without a ticket (a
	// server that announced a ticket and then declined to issue one).
	EmptyTickets int
}

// parseServerFlight reads the server's plaintext handshake messages.
func parseServerFlight(in []byte) serverFlight {
	f := serverFlight{SessionIDLen: -1}
	for _, m := range plaintextHandshake(in) {
		body := cryptobyte.String(m[4:])
		switch m[0] {
		case msgServerHello:
			var sid cryptobyte.String
			if body.Skip(2+32) && body.ReadUint8LengthPrefixed(&sid) {
				f.SessionIDLen = len(sid)
			}
		case msgNewSessionTicket:
			// TLS 1.2: uint32 ticket_lifetime_hint; opaque ticket<0..2^16-1>.
			var hint uint32
			var ticket cryptobyte.String
			if body.ReadUint32(&hint) && body.ReadUint16LengthPrefixed(&ticket) {
				if len(ticket) == 0 {
					f.EmptyTickets++
				} else {
					f.TicketLifetimes = append(f.TicketLifetimes, hint)
				}
			}
		}
	}
	return f
}
