package sessionid

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
)

// Session is a TLS 1.2 session a server keeps by ID, learnt from a full
// handshake: what a resuming client needs (the ID, the master secret,
// the suite and whether the secret is RFC 7627's extended one) and what
// the resumed connections report (server name, ALPN, the certificates
// verified in the full handshake). It is read-only: any number of
// Resume calls may share it. The master secret stays in memory and is
// never written out by this package.
type Session struct {
	id           []byte
	masterSecret []byte
	suite        uint16
	ems          bool
	serverName   string
	alpn         string
	peerCerts    []*x509.Certificate
	chains       [][]*x509.Certificate
}

// String names the session by its ID's start and its suite, never its
// secret (fmt would print every field of the struct).
func (s *Session) String() string {
	return fmt.Sprintf("TLS 1.2 session %x… (%s)", s.id[:min(len(s.id), 8)], tls.CipherSuiteName(s.suite))
}

// GoString is String, for %#v.
func (s *Session) GoString() string { return s.String() }

// ID is the session ID the server chose.
func (s *Session) ID() []byte { return slices.Clone(s.id) }

// CipherSuite is the session's suite.
func (s *Session) CipherSuite() uint16 { return s.suite }

// ExtendedMasterSecret reports whether the session's master secret is
// bound to its full handshake (RFC 7627).
func (s *Session) ExtendedMasterSecret() bool { return s.ems }

// ServerName is the name the full handshake sent and verified.
func (s *Session) ServerName() string { return s.serverName }

// NegotiatedProtocol is the ALPN protocol of the full handshake.
func (s *Session) NegotiatedProtocol() string { return s.alpn }

// PeerCertificates are the server's certificates from the full handshake.
func (s *Session) PeerCertificates() []*x509.Certificate { return s.peerCerts }

// maxRecorded bounds what the full handshake's recorder keeps of each
// direction: the hellos come first and are small; the rest (a
// certificate chain) is not needed.
const maxRecorded = 64 << 10

// recorder is the net.Conn under the full handshake's tls.Conn: it keeps
// the first bytes each way, the plaintext hellos, and then stops.
type recorder struct {
	net.Conn
	mu      sync.Mutex
	stopped bool
	read    []byte
	written []byte
}

func (r *recorder) Read(b []byte) (int, error) {
	n, err := r.Conn.Read(b)
	r.mu.Lock()
	if !r.stopped {
		r.read = appendBounded(r.read, b[:n])
	}
	r.mu.Unlock()
	return n, err
}

func (r *recorder) Write(b []byte) (int, error) {
	r.mu.Lock()
	if !r.stopped {
		r.written = appendBounded(r.written, b)
	}
	r.mu.Unlock()
	return r.Conn.Write(b)
}

func (r *recorder) stop() (read, written []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
	read, written, r.read, r.written = r.read, r.written, nil, nil
	return read, written
}

func appendBounded(dst, b []byte) []byte {
	return append(dst, b[:min(len(b), maxRecorded-len(dst))]...)
}

// Handshake runs a full TLS 1.2 handshake on conn with a clone of
// config (verification as config says; session tickets disabled, so the
// server keeps the session by ID if at all; TLS 1.2 only) and returns
// the connection and the session to resume. When the server sent no
// session ID, the connection is returned, usable, with ErrNoSessionID.
// On any other error conn is closed.
func Handshake(ctx context.Context, conn net.Conn, config *tls.Config) (*tls.Conn, *Session, error) {
	cfg := config.Clone()
	if cfg == nil {
		cfg = &tls.Config{}
	}
	cfg.SessionTicketsDisabled = true
	cfg.ClientSessionCache = nil
	cfg.MinVersion, cfg.MaxVersion = tls.VersionTLS12, tls.VersionTLS12
	if cfg.CipherSuites = resumableSuites(cfg.CipherSuites); len(cfg.CipherSuites) == 0 {
		conn.Close()
		return nil, nil, ErrUnsupportedSuite
	}
	kl := &keyLog{next: cfg.KeyLogWriter}
	cfg.KeyLogWriter = kl
	rec := &recorder{Conn: conn}
	tc := tls.Client(rec, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		tc.Close()
		return nil, nil, err
	}
	read, written := rec.stop()
	s, err := sessionFrom(tc.ConnectionState(), cfg.ServerName, read, written, kl)
	if err != nil && !errors.Is(err, ErrNoSessionID) {
		tc.Close()
		return nil, nil, err
	}
	return tc, s, err
}

// sessionFrom builds the session from the handshake's state, the bytes
// it read and wrote, and its key log.
func sessionFrom(cs tls.ConnectionState, serverName string, read, written []byte, kl *keyLog) (*Session, error) {
	typ, ch, err := firstHandshakeMessage(written)
	if err != nil || typ != typeClientHello || len(ch) < 2+randomLen {
		return nil, fmt.Errorf("reading the full handshake's own ClientHello: %v", err)
	}
	typ, body, err := firstHandshakeMessage(read)
	if err != nil || typ != typeServerHello {
		return nil, fmt.Errorf("reading the server's ServerHello: %v", err)
	}
	sh, err := parseServerHello(body)
	if err != nil {
		return nil, fmt.Errorf("reading the server's ServerHello: %w", err)
	}
	if sh.suite != cs.CipherSuite || sh.version != versionTLS12 {
		return nil, errors.New("the ServerHello read does not match the handshake crypto/tls completed")
	}
	if len(sh.sessionID) == 0 {
		return nil, ErrNoSessionID
	}
	if _, err := suiteByID(sh.suite); err != nil {
		return nil, err
	}
	ms := kl.masterSecret(ch[2 : 2+randomLen])
	if ms == nil {
		return nil, errors.New("the handshake logged no master secret for its client random")
	}
	return &Session{
		id:           bytes.Clone(sh.sessionID),
		masterSecret: ms,
		suite:        sh.suite,
		ems:          sh.ems,
		serverName:   serverName,
		alpn:         cs.NegotiatedProtocol,
		peerCerts:    cs.PeerCertificates,
		chains:       cs.VerifiedChains,
	}, nil
}

// resumableSuites narrows a configuration's suites to those a session
// can be resumed with, so that the full handshake makes no session the
// client cannot resume; nil (crypto/tls's defaults) becomes all of them.
func resumableSuites(configured []uint16) []uint16 {
	if configured == nil {
		return SupportedSuites()
	}
	var out []uint16
	for _, id := range configured {
		if _, err := suiteByID(id); err == nil {
			out = append(out, id)
		}
	}
	return out
}
