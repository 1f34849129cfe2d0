package probe

import (
	"encoding/binary"
	"net"
	"sync"
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
	r := reader(b)
	var sid, suites, comp []byte
	ok := r.skip(2+32) && r.vec8(&sid)
	if client {
		ok = ok && r.vec16(&suites) && r.vec8(&comp)
	} else {
		ok = ok && r.skip(2+1) // cipher_suite, compression_method
	}
	if !ok {
		return nil, false
	}
	if len(r) == 0 {
		return nil, true // no extensions at all
	}
	var extBytes []byte
	if !r.vec16(&extBytes) {
		return nil, false
	}
	var exts []extension
	er := reader(extBytes)
	for len(er) > 0 {
		var typ uint16
		var data []byte
		if !er.u16(&typ) || !er.vec16(&data) {
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
		body := reader(m[4:])
		switch m[0] {
		case msgServerHello:
			var sid []byte
			if body.skip(2+32) && body.vec8(&sid) {
				f.SessionIDLen = len(sid)
			}
		case msgNewSessionTicket:
			// TLS 1.2: uint32 ticket_lifetime_hint; opaque ticket<0..2^16-1>.
			var hint uint32
			var ticket []byte
			if body.u32(&hint) && body.vec16(&ticket) {
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

// reader is a minimal cursor over big-endian TLS encodings.
type reader []byte

func (r *reader) skip(n int) bool {
	if len(*r) < n {
		return false
	}
	*r = (*r)[n:]
	return true
}

func (r *reader) bytes(n int, out *[]byte) bool {
	if n < 0 || len(*r) < n {
		return false
	}
	*out = (*r)[:n]
	*r = (*r)[n:]
	return true
}

func (r *reader) u8(v *uint8) bool {
	if len(*r) < 1 {
		return false
	}
	*v = (*r)[0]
	*r = (*r)[1:]
	return true
}

func (r *reader) u16(v *uint16) bool {
	if len(*r) < 2 {
		return false
	}
	*v = binary.BigEndian.Uint16(*r)
	*r = (*r)[2:]
	return true
}

func (r *reader) u24(v *int) bool {
	if len(*r) < 3 {
		return false
	}
	*v = int((*r)[0])<<16 | int((*r)[1])<<8 | int((*r)[2])
	*r = (*r)[3:]
	return true
}

func (r *reader) u32(v *uint32) bool {
	if len(*r) < 4 {
		return false
	}
	*v = binary.BigEndian.Uint32(*r)
	*r = (*r)[4:]
	return true
}

func (r *reader) u64(v *uint64) bool {
	if len(*r) < 8 {
		return false
	}
	*v = binary.BigEndian.Uint64(*r)
	*r = (*r)[8:]
	return true
}

func (r *reader) vec8(out *[]byte) bool {
	var n uint8
	return r.u8(&n) && r.bytes(int(n), out)
}

func (r *reader) vec16(out *[]byte) bool {
	var n uint16
	return r.u16(&n) && r.bytes(int(n), out)
}

func (r *reader) vec24(out *[]byte) bool {
	var n int
	return r.u24(&n) && r.bytes(n, out)
}
