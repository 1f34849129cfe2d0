package keys

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
)

// RecordClientHello wraps a server-side connection so that the Manager can
// read the raw ClientHello: crypto/tls parses signature_algorithms_cert but
// does not expose it. Wrap before handing the connection to crypto/tls:
//
//	tc := tls.Server(keys.RecordClientHello(c), cfg)
//
// ClientHelloInfo.Conn is then the wrapper, which is how GetCertificate
// finds it. The wrapper copies the ClientHello out of the records read
// until it is complete (one allocation of its size per connection),
// reads only record headers after it until the client's records are
// encrypted (its first application_data record), and afterwards only
// checks an atomic flag per Read. Handshake records spread over more,
// smaller records than real clients send (the ClientHello, a second one
// after a HelloRetryRequest, a TLS 1.2 client's second flight) are
// refused: Read returns an error wrapping ErrFragmentedHello, which ends
// the handshake, and keeps returning it. The records are read as
// crypto/tls reads them: before the ClientHello any record version below
// 16.0, and warning alerts, which it drops, counted among the records;
// after it change_cipher_spec records too. A stream that does not start
// with a ClientHello (not TLS, or too large to be a real one) has no
// ClientHello recorded, and its records are watched as long as crypto/tls
// reads them. After a HelloRetryRequest crypto/tls chooses the
// certificate with the second ClientHello; the recorder keeps the first,
// which RFC 8446 section 4.1.2 requires to carry the same signature
// algorithms.
//
// The wrapper forwards everything else to c; NetConn returns c, for code
// that needs the socket underneath (kTLS).
func RecordClientHello(c net.Conn) net.Conn {
	if h, ok := c.(*helloConn); ok {
		return h
	}
	return &helloConn{Conn: c}
}

// RecordingListener wraps every connection ln accepts with
// RecordClientHello.
func RecordingListener(ln net.Listener) net.Listener { return recordingListener{ln} }

type recordingListener struct{ net.Listener }

func (l recordingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return RecordClientHello(c), nil
}

// Rejection returns why the Manager refused to choose an identity for the
// handshake on c (a *NoIdentityError), or nil. c is the connection given
// to RecordClientHello, the wrapper itself, or a *tls.Conn over it. It lets
// a server log its own reason next to crypto/tls's error, which for a
// rejection is a generic "no cipher suite" or "unsupported certificate".
func Rejection(c net.Conn) error {
	h := helloConnOf(c)
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.rejection == nil {
		return nil // not a typed nil
	}
	return h.rejection
}

type helloConn struct {
	net.Conn

	done atomic.Bool // the client's plaintext records are over, or not TLS

	mu        sync.Mutex
	asm       helloAssembler // until done or refused
	msg       []byte         // the ClientHello message, once complete
	err       error          // why there is no msg
	refused   error          // the ClientHello's records are refused: what Read returns
	rejection *NoIdentityError
}

// NetConn returns the wrapped connection, as tls.Conn.NetConn does.
func (h *helloConn) NetConn() net.Conn { return h.Conn }

func (h *helloConn) Read(p []byte) (int, error) {
	if h.done.Load() {
		return h.Conn.Read(p)
	}
	return h.readHello(p)
}

// readHello is Read until the client's plaintext records are over.
func (h *helloConn) readHello(p []byte) (int, error) {
	if err := h.refusal(); err != nil {
		return 0, err
	}
	n, err := h.Conn.Read(p)
	if n > 0 {
		if rerr := h.record(p[:n]); rerr != nil {
			return 0, rerr
		}
	}
	return n, err
}

// record feeds b to the assembler, and keeps the ClientHello (or why
// there is none) once known. It returns an error when the records are
// refused (ErrFragmentedHello), and sets done when the client's
// plaintext records are over.
func (h *helloConn) record(b []byte) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done.Load() || h.refused != nil {
		return h.refused
	}
	err := h.asm.feed(b)
	if h.msg == nil && h.err == nil {
		h.msg, h.err = h.asm.hello, h.asm.helloErr // msg is its own allocation
		if err != nil && h.msg == nil && h.err == nil {
			_, h.err = h.asm.result(err)
		}
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrFragmentedHello):
		h.refused = err
		h.asm = helloAssembler{work: h.asm.work}
		return err
	}
	h.asm = helloAssembler{work: h.asm.work}
	h.done.Store(true)
	return nil
}

func (h *helloConn) refusal() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.refused
}

// clientHello returns the recorded ClientHello message, or nil with the
// reason.
func (h *helloConn) clientHello() ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.msg != nil {
		return h.msg, nil
	}
	if h.err != nil {
		return nil, h.err
	}
	return nil, errIncomplete
}

func (h *helloConn) setRejection(err *NoIdentityError) {
	h.mu.Lock()
	h.rejection = err
	h.mu.Unlock()
}

// helloConnOf finds the recorder in c or under it, following NetConn as
// tls.Conn, the recorder and kTLS's RecordConn provide it. The depth limit
// guards against a wrapper that returns itself.
func helloConnOf(c net.Conn) *helloConn {
	for range 8 {
		switch x := c.(type) {
		case *helloConn:
			return x
		case interface{ NetConn() net.Conn }:
			c = x.NetConn()
		default:
			return nil
		}
	}
	return nil
}
