package ktls

import (
	"errors"
	"fmt"
)

// Direction selects which half of a connection is handed to the kernel.
type Direction int

const (
	// TX offloads encryption of what this end writes.
	TX Direction = 1 << iota
	// RX offloads decryption of what this end reads.
	RX
	// Both offloads both directions.
	Both = TX | RX
)

// String returns "tx", "rx", "both" or "none".
func (d Direction) String() string {
	switch d {
	case TX:
		return "tx"
	case RX:
		return "rx"
	case Both:
		return "both"
	case 0:
		return "none"
	}
	return fmt.Sprintf("Direction(%d)", int(d))
}

// ParseDirection accepts "tx", "rx" and "both".
func ParseDirection(s string) (Direction, error) {
	switch s {
	case "tx":
		return TX, nil
	case "rx":
		return RX, nil
	case "both":
		return Both, nil
	}
	return 0, fmt.Errorf("ktls: unknown direction %q (want tx, rx or both)", s)
}

// State reports what Enable configured on a connection.
type State struct {
	TX, RX      bool   // direction handled by the kernel
	Version     uint16 // tls.VersionTLS12 or tls.VersionTLS13
	CipherSuite uint16 // as negotiated by crypto/tls
	Cipher      string // "aes128gcm", "aes256gcm" or "chacha20poly1305"
	// TXSeq and RXSeq are the record sequence numbers handed to the kernel:
	// the number of records protected with the same keys before the switch.
	TXSeq, RXSeq uint64
	// Proven are the offloaded directions whose keys opened a record of
	// this connection before anything was installed. TLS 1.2: always both
	// (the Finished records). TLS 1.3: a direction in which nothing was
	// yet sent under the application keys has no record to prove them on
	// (for RX the kernel then authenticates the first record itself).
	Proven Direction
	// Drained is how many bytes of plaintext crypto/tls had decrypted but
	// the caller not yet read at the switch; Conn.Read returns them first.
	Drained int
}

var (
	// ErrUnsupported wraps every "this kernel/OS cannot do kTLS" condition.
	// A caller in "auto" mode falls back to user-space TLS when
	// errors.Is(err, ErrUnsupported).
	ErrUnsupported = errors.New("kTLS is not supported")

	// ErrTLS12Resumed is Enable's answer for a TLS 1.2 connection that
	// resumed a session: crypto/tls logs no secret for those, so there
	// are no keys to give the kernel. It wraps ErrUnsupported.
	ErrTLS12Resumed = fmt.Errorf("%w: TLS 1.2 resumed session: crypto/tls does not export its keys", ErrUnsupported)

	// ErrNoKernelTLS is a kernel without TLS at all (no TLS ULP: built
	// without CONFIG_TLS, or its module not loaded), as opposed to one
	// that lacks a version or cipher: callers that sum up fallbacks by
	// reason can then name the missing module. It wraps ErrUnsupported.
	ErrNoKernelTLS = fmt.Errorf("%w: kernel has no TLS ULP (CONFIG_TLS)", ErrUnsupported)

	// ErrConnBroken is wrapped by Enable errors after which the connection
	// must be closed: one direction was already handed to the kernel when a
	// later step failed. Any other Enable error leaves the tls.Conn usable
	// in user space (the RecordConn is switched to pass-through).
	ErrConnBroken = errors.New("connection left half-offloaded; close it")

	// ErrKeyUpdate is returned by Conn.Read when the peer sends a TLS 1.3
	// KeyUpdate while the kernel decrypts: the kernel this package targets
	// cannot re-key a kTLS socket (rekey arrived in Linux 6.14) and this
	// package does not implement it, so the stream cannot continue.
	ErrKeyUpdate = errors.New("ktls: peer sent a TLS 1.3 KeyUpdate; re-keying a kTLS socket is not implemented")

	// errOffloaded is returned by RecordConn when crypto/tls tries to use a
	// direction that now belongs to the kernel.
	errOffloaded = errors.New("ktls: this direction is offloaded to the kernel; use the *ktls.Conn, not the *tls.Conn")
)

// Option adjusts Enable.
type Option func(*options)

type options struct {
	rxExpectNoPad bool
}

// WithRxExpectNoPad sets TLS_RX_EXPECT_NO_PAD (Linux 6.0+) on TLS 1.3 RX:
// the kernel decrypts straight into the caller's buffer, assuming the peer
// does not pad records (Go and OpenSSL do not by default; the kernel falls
// back and counts TlsRxNoPadViolation when one is padded). Failure to set
// it is ignored: it is an optimisation, not a requirement.
func WithRxExpectNoPad() Option { return func(o *options) { o.rxExpectNoPad = true } }
