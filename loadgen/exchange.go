package loadgen

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
)

// Exchange runs on a connection after its handshake. It must prove the
// connection carries data and, for TLS 1.3, make the client read what the
// server sent after the handshake (the session ticket).
type Exchange func(tc *tls.Conn) error

// PingPong writes one byte and reads one byte back: the exchange for
// tlsbench's own echo server. Reading is what matters for TLS 1.3: the
// server's NewSessionTicket precedes the echoed byte, so crypto/tls stores
// the ticket before Read returns.
func PingPong(tc *tls.Conn) error {
	if _, err := tc.Write([]byte{'p'}); err != nil {
		return err
	}
	var b [1]byte
	if _, err := io.ReadFull(tc, b[:]); err != nil {
		return err
	}
	if b[0] != 'p' {
		return fmt.Errorf("%w: ping answered with %q", errBadEcho, b[0])
	}
	return nil
}

var errBadEcho = errors.New("server did not echo")

// NoExchange closes right after the handshake. It exists to show what
// goes wrong without an exchange: TLS 1.3 tickets are never read.
func NoExchange(*tls.Conn) error { return nil }
