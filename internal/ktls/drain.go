package ktls

import (
	"crypto/tls"
	"errors"
)

// errDraining is what the RecordConn returns to crypto/tls while Enable
// empties the tls.Conn's plaintext buffer: a temporary net.Error, which
// crypto/tls passes up without recording it as the connection's permanent
// read error, and which stops it before it touches the socket.
type errDraining struct{}

func (errDraining) Error() string   { return "ktls: draining the plaintext buffered in crypto/tls" }
func (errDraining) Timeout() bool   { return false }
func (errDraining) Temporary() bool { return true }

// maxDrain bounds what drain takes: crypto/tls holds at most one record's
// plaintext (16 KiB) when it reads through a RecordConn, which never gives
// it bytes past the record being read.
const maxDrain = 64 << 10

// drain returns the plaintext crypto/tls decrypted but the caller has not
// read yet (the peer's data right behind its Finished or behind a
// ping-pong, say), without reading the socket: what is still there belongs
// to the kernel. err is what tc would report after that data (io.EOF when
// it had already read close_notify), nil when it would read the socket.
func drain(tc *tls.Conn, rc *RecordConn) (data []byte, err error) {
	rc.draining.Store(true)
	defer rc.draining.Store(false)
	buf := make([]byte, 16<<10)
	for len(data) <= maxDrain {
		n, err := tc.Read(buf)
		data = append(data, buf[:n]...)
		if errors.As(err, new(errDraining)) {
			return data, nil
		}
		if err != nil {
			return data, err
		}
	}
	return data, errors.New("ktls: crypto/tls held more plaintext than one record")
}
