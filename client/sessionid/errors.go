package sessionid

import (
	"errors"
	"fmt"
)

var (
	// ErrNotResumed is a resumption the server declined: its ServerHello
	// did not echo the session ID, so it started a new session. The
	// connection has been closed.
	ErrNotResumed = errors.New("the server did not resume the session ID")
	// ErrNoSessionID is a full handshake whose server sent an empty
	// session ID: it keeps no session that could be resumed by ID.
	ErrNoSessionID = errors.New("the server sent no session ID: it does not cache sessions for resumption by ID")
	// ErrUnsupportedSuite is a session whose cipher suite cannot be
	// resumed: only the TLS 1.2 ECDHE suites with AES-GCM or
	// ChaCha20-Poly1305 can.
	ErrUnsupportedSuite = errors.New("cipher suite not supported for resumption by session ID (use an ECDHE suite with AES-GCM or ChaCha20-Poly1305)")
	// ErrBadFinished is a server Finished whose verify_data is wrong:
	// the server does not hold the session's master secret, or the
	// handshake was altered on the way.
	ErrBadFinished = errors.New("the server's Finished message does not verify: the resumed handshake is not authentic")
	// ErrBadRecordMAC is a record from the server that does not
	// authenticate: altered on the way, or protected with other keys.
	ErrBadRecordMAC = errors.New("a record from the server does not authenticate (bad record MAC)")
)

// Alert descriptions (RFC 5246 §7.2, RFC 7301, RFC 8446 for names in use).
const (
	alertCloseNotify          uint8 = 0
	alertUnexpectedMessage    uint8 = 10
	alertBadRecordMAC         uint8 = 20
	alertRecordOverflow       uint8 = 22
	alertHandshakeFailure     uint8 = 40
	alertIllegalParameter     uint8 = 47
	alertDecodeError          uint8 = 50
	alertDecryptError         uint8 = 51
	alertProtocolVersion      uint8 = 70
	alertInternalError        uint8 = 80
	alertNoRenegotiation      uint8 = 100
	alertUnsupportedExtension uint8 = 110
	alertLevelWarning         uint8 = 1
	alertLevelFatal           uint8 = 2
)

var alertNames = map[uint8]string{
	0: "close_notify", 10: "unexpected_message", 20: "bad_record_mac",
	21: "decryption_failed", 22: "record_overflow", 30: "decompression_failure",
	40: "handshake_failure", 42: "bad_certificate", 43: "unsupported_certificate",
	44: "certificate_revoked", 45: "certificate_expired", 46: "certificate_unknown",
	47: "illegal_parameter", 48: "unknown_ca", 49: "access_denied", 50: "decode_error",
	51: "decrypt_error", 70: "protocol_version", 71: "insufficient_security",
	80: "internal_error", 86: "inappropriate_fallback", 90: "user_canceled",
	100: "no_renegotiation", 109: "missing_extension", 110: "unsupported_extension",
	112: "unrecognized_name", 116: "certificate_required", 120: "no_application_protocol",
}

func alertName(a uint8) string {
	if name, ok := alertNames[a]; ok {
		return name
	}
	return fmt.Sprintf("alert %d", a)
}

// AlertError is a fatal alert the server sent.
type AlertError struct {
	// Alert is the alert's description code (RFC 5246 §7.2).
	Alert uint8
}

func (e *AlertError) Error() string {
	return fmt.Sprintf("the server sent the fatal TLS alert %s (%d)", alertName(e.Alert), e.Alert)
}

// localError is a failure on this side that the server is told of by a
// fatal alert before the connection closes.
type localError struct {
	alert uint8
	err   error
}

func (e *localError) Error() string { return e.err.Error() }
func (e *localError) Unwrap() error { return e.err }
