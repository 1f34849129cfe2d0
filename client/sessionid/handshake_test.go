package sessionid_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client/sessionid"
	"github.com/tlsbench/tlsbench/internal/testpki"
)

// TestHandshakeGoServer runs the full handshake against crypto/tls's
// server, which echoes the client's (empty) session ID: no session, the
// connection still usable. The hello offers TLS 1.2 only and no ticket,
// and the caller's key log writer still gets its line.
func TestHandshakeGoServer(t *testing.T) {
	t.Parallel()
	srvCfg, ca := testpki.Server(t)
	var hello *tls.ClientHelloInfo
	srvCfg.GetConfigForClient = func(chi *tls.ClientHelloInfo) (*tls.Config, error) {
		hello = chi
		return nil, nil
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", srvCfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c)
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	var keyLog bytes.Buffer
	cfg := &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", KeyLogWriter: &keyLog}
	tc, s, err := sessionid.Handshake(context.Background(), conn, cfg)
	if !errors.Is(err, sessionid.ErrNoSessionID) || s != nil || tc == nil {
		t.Fatalf("Handshake = %v, %v, %v; want a connection and ErrNoSessionID", tc, s, err)
	}
	defer tc.Close()
	if _, err := tc.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(tc, make([]byte, 1)); err != nil {
		t.Fatalf("the connection is not usable: %v", err)
	}
	if !strings.HasPrefix(keyLog.String(), "CLIENT_RANDOM ") {
		t.Fatalf("the caller's key log got %q", keyLog.String())
	}
	if cfg.SessionTicketsDisabled || cfg.KeyLogWriter != &keyLog {
		t.Fatal("the caller's configuration was changed")
	}
	if slices.Contains(hello.Extensions, 35) || !slices.Equal(hello.SupportedVersions, []uint16{tls.VersionTLS12}) {
		t.Fatalf("the ClientHello offered extensions %v, versions %x: want no session ticket, TLS 1.2 only", hello.Extensions, hello.SupportedVersions)
	}
}

// TestHandshakeNoResumableSuite: a configuration whose suites cannot be
// resumed is refused before anything is sent.
func TestHandshakeNoResumableSuite(t *testing.T) {
	t.Parallel()
	a, b := net.Pipe()
	defer b.Close()
	cfg := &tls.Config{CipherSuites: []uint16{tls.TLS_RSA_WITH_AES_128_GCM_SHA256}}
	if _, _, err := sessionid.Handshake(context.Background(), a, cfg); !errors.Is(err, sessionid.ErrUnsupportedSuite) {
		t.Fatalf("Handshake: %v, want ErrUnsupportedSuite", err)
	}
}
