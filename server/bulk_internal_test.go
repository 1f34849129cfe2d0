package server

import (
	"bytes"
	"crypto/tls"
	"testing"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// TestKTLSIsOptIn: without WithKTLS the server's tls.Config has no
// KeyLogWriter and ServeConn puts no record-exact reader under its
// connections (it wraps only when s.kl is set), so the handshake
// benchmark measures exactly what it did before kTLS existed. With it,
// an existing key log writer keeps receiving every line.
func TestKTLSIsOptIn(t *testing.T) {
	t.Parallel()
	_, id := testpki.Identity(t)
	newCfg := func() *tls.Config {
		cfg, err := tlsconf.Server(tlsconf.ServerOptions{Certificates: []tls.Certificate{id.TLSCertificate()}})
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	s := New(newCfg())
	if s.kl != nil || s.tls.KeyLogWriter != nil || s.KTLSReady() {
		t.Errorf("plain server: key log %v, KeyLogWriter %v", s.kl, s.tls.KeyLogWriter)
	}
	var tee bytes.Buffer
	cfg := newCfg()
	cfg.KeyLogWriter = &tee
	s = New(cfg, WithKTLS())
	if s.kl == nil || s.tls.KeyLogWriter != s.kl || s.kl.Tee != &tee || !s.KTLSReady() {
		t.Errorf("kTLS server: key log %v, KeyLogWriter %v, tee %v", s.kl, s.tls.KeyLogWriter, s.kl.Tee)
	}
}
