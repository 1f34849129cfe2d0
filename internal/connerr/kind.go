package connerr

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
)

// Kinds of failure. Alerts are reported as "alert:" + the alert's name,
// e.g. "alert:bad certificate".
const (
	Timeout  = "timeout"
	Refused  = "refused"
	Reset    = "reset"
	EOF      = "eof"
	Verify   = "verify"
	Canceled = "canceled"
	Other    = "other"
)

// Kinds of a TLS 1.2 resumption by session ID that failed after the
// server accepted the session (the client's own checks; a cache miss is
// no failure: the connection counts as not resumed).
const (
	// BadFinished: the server's Finished did not verify.
	BadFinished = "bad-finished"
	// BadRecordMAC: a record from the server did not authenticate.
	BadRecordMAC = "bad-record-mac"
	// UnsupportedSuite: the session's suite cannot be resumed by ID.
	UnsupportedSuite = "unsupported-suite"
)

// Kind classifies err. A nil error has kind "".
func Kind(err error) string {
	if err == nil {
		return ""
	}
	var alert tls.AlertError
	if errors.As(err, &alert) {
		return "alert:" + strings.TrimPrefix(alert.Error(), "tls: ")
	}
	// The peer's alert as the client sees it in crypto/tls: a
	// net.OpError wrapping "remote error: tls: <alert>".
	if msg := err.Error(); strings.Contains(msg, "remote error: tls: ") {
		return "alert:" + msg[strings.LastIndex(msg, "remote error: tls: ")+len("remote error: tls: "):]
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return Canceled
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return Timeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return Refused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return Reset
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return EOF
	}
	var (
		unknownAuthority x509.UnknownAuthorityError
		hostname         x509.HostnameError
		invalid          x509.CertificateInvalidError
		verification     *tls.CertificateVerificationError
	)
	if errors.As(err, &unknownAuthority) || errors.As(err, &hostname) ||
		errors.As(err, &invalid) || errors.As(err, &verification) {
		return Verify
	}
	return Other
}
