package server

import (
	"bytes"
	"crypto/tls"
	"testing"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// TestKTLSIsOptIn: without WithKTLS the server's tls.Config is the one it
// was given (no KeyLogWriter, no per-connection config) and ServeConn puts
// no record-exact reader under its connections (it wraps only when s.ktls
// is set), so the handshake benchmark measures exactly what it did before
// kTLS existed. With it, an existing key log writer keeps receiving every
// line.
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
	plain := newCfg()
	s := New(plain)
	if s.ktls || s.tls != plain || s.tls.KeyLogWriter != nil || s.tls.GetConfigForClient != nil || s.KTLSReady() {
		t.Errorf("plain server: kTLS %v, KeyLogWriter %v", s.ktls, s.tls.KeyLogWriter)
	}
	var tee bytes.Buffer
	cfg := newCfg()
	cfg.KeyLogWriter = &tee
	s = New(cfg, WithKTLS())
	if !s.ktls || s.tls.GetConfigForClient == nil || !s.KTLSReady() {
		t.Fatalf("kTLS server: kTLS %v, GetConfigForClient %v", s.ktls, s.tls.GetConfigForClient != nil)
	}
	// A handshake over a RecordConn gets a config logging into it, and
	// into the existing writer.
	rc := ktls.WrapConn(nil)
	perConn, err := s.tls.GetConfigForClient(&tls.ClientHelloInfo{Conn: s.trackHandshake(rc)})
	if err != nil || perConn == nil || perConn.KeyLogWriter == nil {
		t.Fatalf("per-connection config %v, %v", perConn, err)
	}
	perConn.KeyLogWriter.Write([]byte("CLIENT_RANDOM 0000000000000000000000000000000000000000000000000000000000000000 00\n"))
	if tee.Len() == 0 {
		t.Error("the existing key log writer lost a line")
	}
}
