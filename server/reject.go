package server

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"strings"
	"unicode/utf8"

	"github.com/tlsbench/tlsbench/internal/connerr"
	"github.com/tlsbench/tlsbench/keys"
)

// FailureRevoked is the failure kind of a handshake refused because the
// client certificate is on the revocation list.
const FailureRevoked = "revoked"

// FailureFragmentedHello is the failure kind of a handshake refused
// because the client spread its ClientHello over more, smaller records
// than real clients send (keys.ErrFragmentedHello).
const FailureFragmentedHello = "fragmented-hello"

// maxLogField bounds what a client can put into one log field (a
// certificate subject or an error quoting one).
const maxLogField = 200

// failureKind classifies a failed handshake: connerr's kinds, plus the
// server's own refusals.
func failureKind(err error, noIdentity bool) string {
	var rev *revokedError
	switch {
	case errors.As(err, &rev):
		return FailureRevoked
	case errors.Is(err, keys.ErrFragmentedHello):
		return FailureFragmentedHello
	case noIdentity:
		return "no-identity"
	}
	return connerr.Kind(err)
}

// peerCaused tells the failures the client caused (it went away, timed
// out or sent an alert) from the handshakes the server refused.
func peerCaused(kind string) bool {
	switch kind {
	case connerr.EOF, connerr.Reset, connerr.Timeout, connerr.Canceled:
		return true
	}
	return strings.HasPrefix(kind, "alert:")
}

// rejectedIdentity describes the client certificate of a failed handshake
// (subject and short thumbprint), or "" when the client sent none or the
// handshake failed before it. tc is the connection of a TCP handshake,
// nil for QUIC, whose error alone says.
func rejectedIdentity(err error, tc *tls.Conn) string {
	var cert *x509.Certificate
	var cve *tls.CertificateVerificationError
	var rev *revokedError
	switch {
	case errors.As(err, &cve) && len(cve.UnverifiedCertificates) > 0:
		cert = cve.UnverifiedCertificates[0]
	case errors.As(err, &rev):
		cert = rev.cert
	case tc != nil:
		if pc := tc.ConnectionState().PeerCertificates; len(pc) > 0 {
			cert = pc[0]
		}
	}
	if cert == nil {
		return ""
	}
	return clip(cert.Subject.String()) + " sha256:" + IdentityKey(cert)
}

// clip shortens s for a log field; the log handler quotes what remains,
// so control characters cannot forge lines.
func clip(s string) string {
	if len(s) <= maxLogField {
		return s
	}
	s = s[:maxLogField]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// remoteAddr is c's peer address for logs ("" on in-memory pipes that
// have none).
func remoteAddr(c net.Conn) string {
	if a := c.RemoteAddr(); a != nil {
		return a.String()
	}
	return ""
}
