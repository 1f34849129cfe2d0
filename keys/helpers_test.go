package keys

import (
	"bytes"
	"crypto"
	"crypto/ecdh"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/cryptobyte"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
)

// RSA key generation takes a noticeable time on the 2-core CI machine, so
// each key type (and the 1024-bit negative-test key) is generated once per
// test binary and shared through pki.WithKey.
var (
	keyMu    sync.Mutex
	keyCache = map[string]crypto.Signer{}
)

func testKey(t testing.TB, kt pki.KeyType) crypto.Signer {
	t.Helper()
	return cachedKey(t, string(kt), kt.Generate)
}

func rsa1024(t testing.TB) crypto.Signer {
	t.Helper()
	return cachedKey(t, "rsa-1024", func() (crypto.Signer, error) { return pki.GenerateRSA(1024) })
}

func cachedKey(t testing.TB, name string, gen func() (crypto.Signer, error)) crypto.Signer {
	keyMu.Lock()
	defer keyMu.Unlock()
	if k, ok := keyCache[name]; ok {
		return k
	}
	k, err := gen()
	if err != nil {
		t.Fatalf("generate %s key: %v", name, err)
	}
	keyCache[name] = k
	return k
}

// testPKI is a root with server identities of each benchmarked key
// algorithm for localhost, and one ECDSA identity for other names, written
// as PEM files.
type testPKI struct {
	dir    string
	root   *pki.CA
	pool   *x509.CertPool
	caFile string
	ids    map[string]*pki.Identity
	src    map[string]Source
}

// Names of the identities newTestPKI writes.
const (
	idECDSA   = "ecdsa"
	idRSA     = "rsa"
	idEd25519 = "ed25519"
	idOther   = "other" // ECDSA, for other.test and *.wild.test
)

func newTestPKI(t testing.TB) *testPKI {
	t.Helper()
	root := testpki.CA(t)
	p := &testPKI{dir: t.TempDir(), root: root, pool: root.Pool(), ids: map[string]*pki.Identity{}, src: map[string]Source{}}
	p.caFile = filepath.Join(p.dir, "ca.pem")
	if err := pki.WriteCertsPEM(p.caFile, root.Cert); err != nil {
		t.Fatal(err)
	}
	for name, kt := range map[string]pki.KeyType{idECDSA: pki.ECDSAP256, idRSA: pki.RSA2048, idEd25519: pki.Ed25519} {
		p.add(t, name, root, []string{"localhost", "127.0.0.1"}, pki.WithKey(testKey(t, kt)))
	}
	p.add(t, idOther, root, []string{"other.test", "*.wild.test"})
	return p
}

// add issues an identity from ca and writes it as name.pem and
// name-key.pem.
func (p *testPKI) add(t testing.TB, name string, ca *pki.CA, hosts []string, opts ...pki.Option) Source {
	t.Helper()
	id, err := ca.IssueServer(hosts, opts...)
	if err != nil {
		t.Fatal(err)
	}
	p.ids[name] = id
	p.src[name] = writePEM(t, p.dir, name, id.Chain, id.Key)
	return p.src[name]
}

// sources returns the named identities' sources, in that order.
func (p *testPKI) sources(names ...string) []Source {
	out := make([]Source, len(names))
	for i, n := range names {
		out[i] = p.src[n]
	}
	return out
}

func writePEM(t testing.TB, dir, name string, chain []*x509.Certificate, key crypto.Signer) Source {
	t.Helper()
	s := Source{CertFile: filepath.Join(dir, name+".pem"), KeyFile: filepath.Join(dir, name+"-key.pem")}
	if err := pki.WriteCertsPEM(s.CertFile, chain...); err != nil {
		t.Fatal(err)
	}
	if err := pki.WriteKeyPEM(s.KeyFile, key); err != nil {
		t.Fatal(err)
	}
	return s
}

// writePassword writes a password file and returns its Password.
func writePassword(t testing.TB, dir, password string) Password {
	t.Helper()
	path := filepath.Join(dir, "p12-password")
	if err := os.WriteFile(path, []byte(password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return PasswordFile(path)
}

func mustNew(t testing.TB, sources []Source, opts ...Option) *Manager {
	t.Helper()
	m, err := New(sources, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// serverResult is what the test server saw on one connection.
type serverResult struct {
	err       error // handshake error
	rejection error // Rejection(conn)
	resumed   bool
}

// testServer is a TLS server on 127.0.0.1 whose configuration takes its
// certificates from a Manager, over connections wrapped with
// RecordClientHello, as tlsbench's server does. Loopback TCP rather than
// net.Pipe: an unbuffered pipe deadlocks when both sides write at once,
// which rejections and TLS 1.3 tickets make them do.
type testServer struct {
	addr    string
	cfg     *tls.Config
	results chan serverResult
	noWrap  bool // serve without RecordClientHello
}

func startServer(t testing.TB, m *Manager, tweak func(*tls.Config)) *testServer {
	t.Helper()
	return startServerWrap(t, m, tweak, true)
}

func startServerWrap(t testing.TB, m *Manager, tweak func(*tls.Config), wrap bool) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{GetCertificate: m.GetCertificate, MinVersion: tls.VersionTLS12}
	if tweak != nil {
		tweak(cfg)
	}
	s := &testServer{addr: ln.Addr().String(), cfg: cfg, results: make(chan serverResult, 64), noWrap: !wrap}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.serve(c)
			}()
		}
	}()
	return s
}

// serve runs one connection: handshake, then one byte to the client (so
// that a TLS 1.3 client reads its tickets), then read until the client
// closes.
func (s *testServer) serve(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	if !s.noWrap {
		c = RecordClientHello(c)
	}
	tc := tls.Server(c, s.cfg)
	var res serverResult
	res.err = tc.Handshake()
	res.rejection = Rejection(tc)
	if res.err == nil {
		st := tc.ConnectionState()
		res.resumed = st.DidResume
		tc.Write([]byte{1})
		io.Copy(io.Discard, tc)
	}
	select {
	case s.results <- res:
	default:
	}
}

// result waits for the server's view of the next connection.
func (s *testServer) result(t testing.TB) serverResult {
	t.Helper()
	select {
	case r := <-s.results:
		return r
	case <-time.After(20 * time.Second):
		t.Fatal("no server result within 20 s")
	}
	return serverResult{}
}

// dial runs a client handshake against s and reads the server's byte.
// It returns the connection state and the client's error.
func dial(t testing.TB, addr string, cfg *tls.Config) (tls.ConnectionState, error) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	tc := tls.Client(c, cfg)
	if err := tc.Handshake(); err != nil {
		return tls.ConnectionState{}, err
	}
	var b [1]byte
	if _, err := io.ReadFull(tc, b[:]); err != nil {
		return tc.ConnectionState(), err
	}
	st := tc.ConnectionState()
	tc.Close()
	return st, nil
}

// helloSpec describes a hand-built ClientHello.
type helloSpec struct {
	tls13       bool // TLS 1.3 only (supported_versions, key_share); else TLS 1.2
	serverName  string
	sigAlgs     []tls.SignatureScheme
	certSigAlgs []tls.SignatureScheme // nil: extension absent
	suites      []uint16              // default per version
	// raw replaces the extensions block entirely (for malformed input);
	// noExtensions leaves it out.
	raw          []byte
	noExtensions bool
}

// buildHello builds a ClientHello handshake message that crypto/tls
// accepts: TLS 1.3 with an X25519 key share, or TLS 1.2 with ECDHE suites.
func buildHello(t testing.TB, s helloSpec) []byte {
	t.Helper()
	suites := s.suites
	if suites == nil {
		if s.tls13 {
			suites = []uint16{tls.TLS_AES_128_GCM_SHA256}
		} else {
			suites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}
		}
	}
	var b cryptobyte.Builder
	b.AddUint8(handshakeClientHello)
	b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) {
		b.AddUint16(tls.VersionTLS12)
		b.AddBytes(make([]byte, 32)) // random; zero is fine for a test
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) {
			if s.tls13 {
				b.AddBytes(make([]byte, 32)) // legacy_session_id for middlebox compatibility
			}
		})
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			for _, c := range suites {
				b.AddUint16(c)
			}
		})
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddUint8(0) })
		if s.noExtensions {
			return
		}
		if s.raw != nil {
			b.AddBytes(s.raw)
			return
		}
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			ext := func(typ uint16, body func(b *cryptobyte.Builder)) {
				b.AddUint16(typ)
				b.AddUint16LengthPrefixed(body)
			}
			if s.serverName != "" {
				ext(extServerName, func(b *cryptobyte.Builder) {
					b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
						b.AddUint8(0)
						b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes([]byte(s.serverName)) })
					})
				})
			}
			ext(10, func(b *cryptobyte.Builder) { // supported_groups: x25519, secp256r1
				b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
					b.AddUint16(uint16(tls.X25519))
					b.AddUint16(uint16(tls.CurveP256))
				})
			})
			ext(11, func(b *cryptobyte.Builder) { // ec_point_formats: uncompressed
				b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddUint8(0) })
			})
			if s.sigAlgs != nil {
				ext(extSignatureAlgs, func(b *cryptobyte.Builder) { addSchemes(b, s.sigAlgs) })
			}
			if s.certSigAlgs != nil {
				ext(extSignatureAlgsCert, func(b *cryptobyte.Builder) { addSchemes(b, s.certSigAlgs) })
			}
			ext(23, func(b *cryptobyte.Builder) {})                    // extended_master_secret
			ext(0xff01, func(b *cryptobyte.Builder) { b.AddUint8(0) }) // renegotiation_info
			if s.tls13 {
				ext(extSupportedVersions, func(b *cryptobyte.Builder) {
					b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddUint16(tls.VersionTLS13) })
				})
				key, err := ecdh.X25519().GenerateKey(rand.Reader)
				if err != nil {
					t.Fatal(err)
				}
				ext(51, func(b *cryptobyte.Builder) { // key_share
					b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
						b.AddUint16(uint16(tls.X25519))
						b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(key.PublicKey().Bytes()) })
					})
				})
			}
		})
	})
	msg, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

func addSchemes(b *cryptobyte.Builder, ss []tls.SignatureScheme) {
	b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
		for _, s := range ss {
			b.AddUint16(uint16(s))
		}
	})
}

// records frames a handshake message as TLS records of at most frag
// bytes of payload each.
func records(msg []byte, frag int) []byte {
	var out []byte
	for len(msg) > 0 {
		n := min(frag, len(msg))
		out = append(out, recordTypeHandshake, 3, 1, byte(n>>8), byte(n))
		out = append(out, msg[:n]...)
		msg = msg[n:]
	}
	return out
}

// warningAlert is a warning-level alert record (no_renegotiation), which
// crypto/tls's server drops before the ClientHello.
func warningAlert() []byte { return []byte{recordTypeAlert, 3, 1, 0, 2, 1, 100} }

// versioned sets the record version of every record in stream to
// major.minor.
func versioned(stream []byte, major, minor byte) []byte {
	out := slices.Clone(stream)
	for i := 0; i+recordHeaderLen <= len(out); i += recordHeaderLen + (int(out[i+3])<<8 | int(out[i+4])) {
		out[i+1], out[i+2] = major, minor
	}
	return out
}

// rawResponse is what a server answered to a hand-built ClientHello.
type rawResponse struct {
	alert       int // alert description, -1 for none
	serverHello bool
	leaf        *x509.Certificate // from a TLS 1.2 Certificate message
}

// rawExchange sends a hand-built ClientHello to addr and reads the
// server's plaintext answer: an alert, or ServerHello and (TLS 1.2, where
// it is not encrypted) the Certificate message. It stops at the first
// record it cannot read in the clear.
func rawExchange(t testing.TB, addr string, msg []byte) rawResponse {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.Write(records(msg, maxPlaintextRecord)); err != nil {
		t.Fatal(err)
	}
	res := rawResponse{alert: -1}
	var hs []byte // handshake bytes across records
	hdr := make([]byte, recordHeaderLen)
	for {
		if _, err := io.ReadFull(c, hdr); err != nil {
			if errors.Is(err, io.EOF) {
				return res
			}
			t.Fatalf("read record header: %v", err)
		}
		body := make([]byte, int(hdr[3])<<8|int(hdr[4]))
		if _, err := io.ReadFull(c, body); err != nil {
			t.Fatalf("read record: %v", err)
		}
		switch hdr[0] {
		case 21: // alert
			res.alert = int(body[1])
			return res
		case recordTypeHandshake:
			hs = append(hs, body...)
		default: // ChangeCipherSpec or encrypted: TLS 1.3 goes dark here
			return res
		}
		for len(hs) >= 4 {
			n := 4 + (int(hs[1])<<16 | int(hs[2])<<8 | int(hs[3]))
			if len(hs) < n {
				break
			}
			m := hs[:n]
			hs = hs[n:]
			switch m[0] {
			case 2:
				res.serverHello = true
			case 11: // Certificate (TLS 1.2): certificate_list of 24-bit length-prefixed DER
				s := cryptobyte.String(m[4:])
				var list, der cryptobyte.String
				if !s.ReadUint24LengthPrefixed(&list) || !list.ReadUint24LengthPrefixed(&der) {
					t.Fatal("malformed Certificate message")
				}
				if res.leaf, err = x509.ParseCertificate(der); err != nil {
					t.Fatal(err)
				}
			case 14: // ServerHelloDone
				return res
			}
		}
	}
}

// sameCert reports whether a and b are the same certificate.
func sameCert(a, b *x509.Certificate) bool {
	return a != nil && b != nil && bytes.Equal(a.Raw, b.Raw)
}
