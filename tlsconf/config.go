package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"

	"github.com/tlsbench/tlsbench/internal/ktls"
)

// ClientOptions describe one client configuration.
type ClientOptions struct {
	// Version pins the protocol version (MinVersion = MaxVersion); zero
	// leaves Go's defaults.
	Version uint16
	// Groups are the key-exchange groups offered, in preference order; nil
	// offers Go's defaults.
	Groups []tls.CurveID
	// Cipher, when set, is the only cipher offered (tlsconf.Cipher*): the
	// TLS 1.2 suites of that cipher, or for TLS 1.3, where Go ignores
	// CipherSuites, a preference the Go server follows (TLS 1.2 is then
	// offered too: see ktls.PreferTLS13Cipher). Empty offers Go's defaults.
	Cipher string
	// RootCAs verify the server; nil uses the system roots.
	RootCAs *x509.CertPool
	// ServerName is sent as SNI and verified against the certificate.
	ServerName string
	// Insecure skips server certificate verification (only on --insecure).
	Insecure bool
	// Certificate is the client identity presented for mutual TLS.
	Certificate *tls.Certificate
	// Sessions is the session cache; nil disables resumption.
	Sessions   tls.ClientSessionCache
	NextProtos []string
	// KeyLogWriter receives key log lines (kTLS needs the secrets).
	KeyLogWriter io.Writer
}

// Client builds the client *tls.Config for o.
func Client(o ClientOptions) *tls.Config {
	cfg := &tls.Config{
		MinVersion:         o.Version,
		MaxVersion:         o.Version,
		CurvePreferences:   o.Groups,
		RootCAs:            o.RootCAs,
		ServerName:         o.ServerName,
		InsecureSkipVerify: o.Insecure,
		ClientSessionCache: o.Sessions,
		NextProtos:         o.NextProtos,
		KeyLogWriter:       o.KeyLogWriter,
	}
	if o.Version == 0 {
		cfg.MinVersion = tls.VersionTLS12
	}
	if o.Cipher != "" {
		setCipher(cfg, o.Version, o.Cipher)
	}
	if o.Certificate != nil {
		cert := o.Certificate
		// GetClientCertificate rather than Certificates: Go sends
		// Certificates[0] only when it matches the server's acceptable CAs
		// and schemes; a benchmark must present exactly the identity it was
		// told to, so that a rejection shows up as an error, not as a
		// silent handshake without a certificate.
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			return cert, nil
		}
	}
	return cfg
}

// ServerOptions describe the built-in server's TLS configuration.
type ServerOptions struct {
	MinVersion, MaxVersion uint16
	Groups                 []tls.CurveID
	// Certificates, or GetCertificate when a key manager chooses one per
	// ClientHello.
	Certificates   []tls.Certificate
	GetCertificate func(*tls.ClientHelloInfo) (*tls.Certificate, error)
	// Mutual requires a client certificate that verifies against
	// ClientCAs.
	Mutual    bool
	ClientCAs *x509.CertPool
	// DisableTickets turns session tickets off.
	DisableTickets bool
	NextProtos     []string
	KeyLogWriter   io.Writer
}

// Server builds the server *tls.Config for o.
func Server(o ServerOptions) (*tls.Config, error) {
	if len(o.Certificates) == 0 && o.GetCertificate == nil {
		return nil, errors.New("server has no certificate")
	}
	if o.Mutual && o.ClientCAs == nil {
		return nil, errors.New("mutual TLS needs the CA that issues client certificates")
	}
	cfg := &tls.Config{
		MinVersion:             o.MinVersion,
		MaxVersion:             o.MaxVersion,
		CurvePreferences:       o.Groups,
		Certificates:           o.Certificates,
		GetCertificate:         o.GetCertificate,
		SessionTicketsDisabled: o.DisableTickets,
		NextProtos:             o.NextProtos,
		KeyLogWriter:           o.KeyLogWriter,
	}
	if cfg.MinVersion == 0 {
		cfg.MinVersion = tls.VersionTLS12
	}
	if o.Mutual {
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
		cfg.ClientCAs = o.ClientCAs
	}
	return cfg, nil
}

// setCipher offers only cipher. TLS 1.3 AES-256-GCM cannot be steered
// (CipherRunnable says so); the plan reports such a case instead of
// running it, so the configuration is left at Go's preference.
func setCipher(cfg *tls.Config, version uint16, cipher string) {
	if version != tls.VersionTLS13 {
		cfg.CipherSuites = tls12Suites[cipher]
		return
	}
	cfg.MinVersion = tls.VersionTLS12
	if ktls.PreferTLS13Cipher(cfg, cipher) != nil {
		cfg.MinVersion = tls.VersionTLS13
	}
}
