package server

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"time"

	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// Options configure the built-in server. They are plain data so that the
// same configuration can be built in this process (in-memory transport)
// or handed to a child process over its control channel.
type Options struct {
	// Listen is the TCP address to listen on (child and serve only).
	Listen string `json:"listen,omitempty"`
	// Versions the server accepts, e.g. ["1.2", "1.3"] (default both).
	Versions []string `json:"versions,omitempty"`
	// Identities are the server's certificate chains and keys.
	Identities []IdentityFiles `json:"identities"`
	// Mutual requires client certificates issued by ClientCA.
	Mutual   bool   `json:"mutual,omitempty"`
	ClientCA string `json:"client_ca,omitempty"`
	// DisableTickets turns session tickets off.
	DisableTickets bool `json:"disable_tickets,omitempty"`
	// HandshakeTimeout bounds each handshake (default 10 s).
	HandshakeTimeout time.Duration `json:"handshake_timeout,omitempty"`
}

// IdentityFiles name one identity on disk: a PEM chain (leaf first) and
// its PEM private key.
type IdentityFiles struct {
	Cert string `json:"cert"`
	Key  string `json:"key"`
}

// TLSConfig loads the files Options name and builds the server's
// *tls.Config. Errors name the file at fault.
func (o Options) TLSConfig() (*tls.Config, error) {
	if len(o.Identities) == 0 {
		return nil, errors.New("server has no identity")
	}
	minV, maxV, err := versionRange(o.Versions)
	if err != nil {
		return nil, err
	}
	so := tlsconf.ServerOptions{MinVersion: minV, MaxVersion: maxV, Mutual: o.Mutual, DisableTickets: o.DisableTickets}
	for _, f := range o.Identities {
		id, err := pki.LoadIdentityPEM(f.Cert, f.Key)
		if err != nil {
			return nil, err
		}
		so.Certificates = append(so.Certificates, id.TLSCertificate())
	}
	if o.Mutual {
		if o.ClientCA == "" {
			return nil, errors.New("mutual TLS needs the CA that issues client certificates (--client-ca FILE)")
		}
		certs, err := pki.LoadCertsPEM(o.ClientCA)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		for _, c := range certs {
			pool.AddCert(c)
		}
		so.ClientCAs = pool
	}
	return tlsconf.Server(so)
}

// versionRange turns a list of version names into the min and max version.
func versionRange(names []string) (uint16, uint16, error) {
	if len(names) == 0 {
		return tls.VersionTLS12, tls.VersionTLS13, nil
	}
	var minV, maxV uint16
	for _, n := range names {
		v, err := tlsconf.ParseVersion(n)
		if err != nil {
			return 0, 0, err
		}
		if minV == 0 || v < minV {
			minV = v
		}
		if v > maxV {
			maxV = v
		}
	}
	return minV, maxV, nil
}

// NewFromOptions builds a Server from o.
func NewFromOptions(o Options, opts ...Option) (*Server, error) {
	cfg, err := o.TLSConfig()
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if o.HandshakeTimeout > 0 {
		opts = append([]Option{WithHandshakeTimeout(o.HandshakeTimeout)}, opts...)
	}
	return New(cfg, opts...), nil
}
