package keys

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
)

// TestSelectionGoClients: real handshakes over loopback TCP between
// crypto/tls clients and a server whose certificate the manager chooses.
// Go clients offer every signature scheme, so these cases select by SNI,
// TLS 1.2 cipher suite and server preference; TestSelectionSignatureSchemes
// restricts the schemes.
func TestSelectionGoClients(t *testing.T) {
	t.Parallel()
	p := newTestPKI(t)
	// Loaded RSA first: the server's preference, not load order, decides.
	all := p.sources(idRSA, idEd25519, idECDSA, idOther)
	rsaFirst := mustNew(t, all, WithPreference(x509.RSA, x509.ECDSA, x509.Ed25519))
	ecdsaSuites := []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256}
	rsaSuites := []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256}
	tests := []struct {
		name    string
		m       *Manager
		cfg     *tls.Config
		want    string // identity name
		tls13   bool
		noCheck bool // client does not verify (the name is not in the certificate)
	}{
		{name: "tls1.3 offering everything gets ECDSA", cfg: &tls.Config{ServerName: "localhost"}, want: idECDSA, tls13: true},
		{name: "tls1.2 ECDSA suites get ECDSA", cfg: &tls.Config{ServerName: "localhost", MaxVersion: tls.VersionTLS12, CipherSuites: ecdsaSuites}, want: idECDSA},
		{name: "tls1.2 RSA suites get RSA", cfg: &tls.Config{ServerName: "localhost", MaxVersion: tls.VersionTLS12, CipherSuites: rsaSuites}, want: idRSA},
		{name: "SNI picks its host", cfg: &tls.Config{ServerName: "other.test"}, want: idOther, tls13: true},
		{name: "SNI matches a wildcard", cfg: &tls.Config{ServerName: "api.wild.test"}, want: idOther, tls13: true},
		{name: "SNI in upper case", cfg: &tls.Config{ServerName: "OTHER.test"}, want: idOther, tls13: true},
		{name: "tls1.2 SNI and RSA suites", cfg: &tls.Config{ServerName: "localhost", MaxVersion: tls.VersionTLS12, CipherSuites: rsaSuites}, want: idRSA},
		{name: "unknown SNI falls back to preference", cfg: &tls.Config{ServerName: "unknown.test", InsecureSkipVerify: true}, want: idECDSA, tls13: true, noCheck: true},
		{name: "no SNI (IP address) uses preference", cfg: &tls.Config{ServerName: "127.0.0.1"}, want: idECDSA, tls13: true},
		{name: "configured preference RSA first", m: rsaFirst, cfg: &tls.Config{ServerName: "localhost"}, want: idRSA, tls13: true},
	}
	def := mustNew(t, all)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.m
			if m == nil {
				m = def
			}
			srv := startServer(t, m, nil)
			cfg := tt.cfg.Clone()
			cfg.RootCAs = p.pool
			st, err := dial(t, srv.addr, cfg)
			if err != nil {
				t.Fatalf("handshake: %v (server: %v)", err, srv.result(t).err)
			}
			if got := p.nameOf(st.PeerCertificates[0]); got != tt.want {
				t.Errorf("got the %s identity, want %s", got, tt.want)
			}
			if (st.Version == tls.VersionTLS13) != tt.tls13 {
				t.Errorf("negotiated %s", tls.VersionName(st.Version))
			}
			if !tt.noCheck && len(st.VerifiedChains) == 0 {
				t.Error("client did not verify the chain")
			}
			if r := srv.result(t); r.err != nil || r.rejection != nil {
				t.Errorf("server: %v, rejection %v", r.err, r.rejection)
			}
		})
	}
	if got := def.Stats().Selected[p.src[idECDSA].String()]; got != 4 {
		t.Errorf("Stats.Selected[ecdsa] = %d, want 4", got)
	}
}

// nameOf returns the name of the test identity whose leaf is c.
func (p *testPKI) nameOf(c *x509.Certificate) string {
	for name, id := range p.ids {
		if sameCert(id.Leaf, c) {
			return name
		}
	}
	return "unknown (" + c.Subject.CommonName + ")"
}

// TestSelectionSignatureSchemes: hand-built ClientHellos offering only
// some signature schemes, sent to a real server over TCP. In TLS 1.2 the
// server's Certificate message is in the clear and shows the identity
// chosen; in TLS 1.3 it is encrypted, so the manager's counters show it.
// A client that can verify no identity gets a handshake_failure alert.
func TestSelectionSignatureSchemes(t *testing.T) {
	t.Parallel()
	p := newTestPKI(t)
	// An ECDSA identity under an RSA root: its chain is signed with
	// rsa_pkcs1_sha256, the others' with ecdsa_secp256r1_sha256.
	rsaRoot := testpki.CA(t, pki.WithKey(testKey(t, pki.RSA2048)))
	p.add(t, "ecdsa-rsa-root", rsaRoot, []string{"localhost"})

	const (
		ecdsa256 = tls.ECDSAWithP256AndSHA256
		ecdsa384 = tls.ECDSAWithP384AndSHA384
		pss      = tls.PSSWithSHA256
		pkcs1    = tls.PKCS1WithSHA256
		ed       = tls.Ed25519
	)
	type schemes = []tls.SignatureScheme
	main := p.sources(idRSA, idEd25519, idECDSA, idOther)
	rsaRootFirst := p.sources("ecdsa-rsa-root", idECDSA)
	tests := []struct {
		name   string
		ids    []Source
		spec   helloSpec
		want   string // identity, or "" for a handshake_failure alert
		reason string // with want "": in the rejection
	}{
		{name: "ECDSA only", spec: helloSpec{sigAlgs: schemes{ecdsa256}}, want: idECDSA},
		{name: "RSA-PSS only", spec: helloSpec{sigAlgs: schemes{pss}}, want: idRSA},
		{name: "Ed25519 only", spec: helloSpec{sigAlgs: schemes{ed}}, want: idEd25519},
		{name: "all three", spec: helloSpec{sigAlgs: schemes{pss, ed, ecdsa256}}, want: idECDSA},
		{name: "RSA-PSS and Ed25519 prefers Ed25519", spec: helloSpec{sigAlgs: schemes{pss, ed}}, want: idEd25519},
		{name: "SNI then schemes", spec: helloSpec{serverName: "other.test", sigAlgs: schemes{ecdsa256}}, want: idOther},
		{name: "SNI host with no usable key", spec: helloSpec{serverName: "other.test", sigAlgs: schemes{pss}},
			reason: `not valid for server name "other.test"`},
		{name: "none verifiable", spec: helloSpec{sigAlgs: schemes{0x0808}}, // ed448
			reason: "cannot use its RSA 2048-bit key"},
		{name: "chain not in signature_algorithms_cert", spec: helloSpec{sigAlgs: schemes{ecdsa256, pss, ed}, certSigAlgs: schemes{pkcs1}},
			reason: "signature_algorithms_cert is rsa_pkcs1_sha256"},
		{name: "signature_algorithms_cert picks the chain", ids: rsaRootFirst[1:], spec: helloSpec{sigAlgs: schemes{ecdsa256}, certSigAlgs: schemes{ecdsa256}}, want: idECDSA},
		{name: "signature_algorithms_cert overrides load order", ids: rsaRootFirst, spec: helloSpec{sigAlgs: schemes{ecdsa256}, certSigAlgs: schemes{ecdsa256}}, want: idECDSA},
		{name: "signature_algorithms_cert selects the RSA-signed chain", ids: rsaRootFirst, spec: helloSpec{sigAlgs: schemes{ecdsa256}, certSigAlgs: schemes{pkcs1}}, want: "ecdsa-rsa-root"},
		{name: "without signature_algorithms_cert a fitting chain is preferred", ids: rsaRootFirst, spec: helloSpec{sigAlgs: schemes{ecdsa256}}, want: idECDSA},
		{name: "without signature_algorithms_cert any chain is acceptable", ids: rsaRootFirst[:1], spec: helloSpec{sigAlgs: schemes{ecdsa256}}, want: "ecdsa-rsa-root"},
	}
	for _, version := range []string{"tls1.2", "tls1.3"} {
		for _, tt := range tests {
			t.Run(version+"/"+tt.name, func(t *testing.T) {
				ids := tt.ids
				if ids == nil {
					ids = main
				}
				var logBuf bytes.Buffer
				m := mustNew(t, ids, WithLogger(slog.New(slog.NewTextHandler(&logBuf, nil))))
				srv := startServer(t, m, nil)
				spec := tt.spec
				spec.tls13 = version == "tls1.3"
				before := m.Stats()
				res := rawExchange(t, srv.addr, buildHello(t, spec))
				sr := srv.result(t)
				after := m.Stats()

				if tt.want == "" {
					if res.alert != 40 {
						t.Fatalf("alert %d (server hello %v), want handshake_failure (40)", res.alert, res.serverHello)
					}
					if sr.rejection == nil || !strings.Contains(sr.rejection.Error(), tt.reason) {
						t.Fatalf("rejection %v, want one containing %q", sr.rejection, tt.reason)
					}
					logged := strings.ReplaceAll(logBuf.String(), `\"`, `"`) // the text handler quotes
					if !strings.Contains(logged, tt.reason) || !strings.Contains(logged, "level=WARN") {
						t.Errorf("log lacks the reason:\n%s", logBuf.String())
					}
					if after.Rejected != before.Rejected+1 {
						t.Errorf("Stats.Rejected %d -> %d", before.Rejected, after.Rejected)
					}
					return
				}
				if !res.serverHello {
					t.Fatalf("no ServerHello: alert %d, server %v, rejection %v", res.alert, sr.err, sr.rejection)
				}
				want := p.src[tt.want].String()
				if d := after.Selected[want] - before.Selected[want]; d != 1 {
					t.Errorf("the %s identity was selected %d times (stats %v)", tt.want, d, after.Selected)
				}
				if version == "tls1.2" && p.nameOf(res.leaf) != tt.want {
					t.Errorf("server sent the %s certificate, want %s", p.nameOf(res.leaf), tt.want)
				}
			})
		}
	}
}

// TestSelectionVersionSpecific: schemes whose meaning differs between
// TLS 1.2 and 1.3. PKCS#1 v1.5 may not sign TLS 1.3 handshakes, and in
// TLS 1.3 an ECDSA scheme names the curve.
func TestSelectionVersionSpecific(t *testing.T) {
	t.Parallel()
	p := newTestPKI(t)
	m := mustNew(t, p.sources(idECDSA, idRSA))
	srv := startServer(t, m, nil)
	tests := []struct {
		name   string
		tls13  bool
		scheme tls.SignatureScheme
		want   string // "" for handshake_failure
	}{
		{"pkcs1 in tls1.2", false, tls.PKCS1WithSHA256, idRSA},
		{"pkcs1 in tls1.3", true, tls.PKCS1WithSHA256, ""},
		{"ecdsa sha384 in tls1.2 (any curve)", false, tls.ECDSAWithP384AndSHA384, idECDSA},
		{"ecdsa p384 in tls1.3 (P-256 key)", true, tls.ECDSAWithP384AndSHA384, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := rawExchange(t, srv.addr, buildHello(t, helloSpec{tls13: tt.tls13, sigAlgs: []tls.SignatureScheme{tt.scheme}}))
			srv.result(t)
			if tt.want == "" {
				if res.alert != 40 {
					t.Fatalf("alert %d, want handshake_failure (40)", res.alert)
				}
				return
			}
			if !res.serverHello || p.nameOf(res.leaf) != tt.want {
				t.Fatalf("alert %d, certificate %v; want the %s identity", res.alert, res.leaf != nil, tt.want)
			}
		})
	}
}

// TestRejectionAlert pins the crypto/tls behaviour the manager relies on
// to refuse a handshake: the refusal certificate makes a crypto/tls server
// send handshake_failure in TLS 1.2 and in TLS 1.3, with real crypto/tls
// clients on the other end.
func TestRejectionAlert(t *testing.T) {
	t.Parallel()
	p := newTestPKI(t)
	// Go clients cannot verify MD5 signatures and do not list one in
	// signature_algorithms_cert, so a TLS 1.3 Go client can verify no
	// identity of a manager holding only this chain.
	rsaRoot := testpki.CA(t, pki.WithKey(testKey(t, pki.RSA2048)))
	sha1, err := rsaRoot.IssueServer([]string{"localhost"}, pki.WithSignatureAlgorithm(x509.SHA1WithRSA))
	if err != nil {
		t.Fatal(err)
	}
	md5 := md5Signed(t, sha1)
	md5Src := writePEM(t, t.TempDir(), "md5", md5.Chain, md5.Key)
	allowMD5, _ := ParseConstraints("allow-md5")

	tests := []struct {
		name   string
		m      *Manager
		cfg    *tls.Config
		reason string
	}{
		{"tls1.2 RSA suites, Ed25519 identity", mustNew(t, p.sources(idEd25519)),
			&tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}},
			"cannot use its Ed25519 key"},
		{"tls1.3, chain signed with MD5", mustNew(t, []Source{md5Src}, WithConstraints(allowMD5)),
			&tls.Config{MinVersion: tls.VersionTLS13},
			"certificate 1 of its chain (rsa_md5)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, tt.m, nil)
			cfg := tt.cfg.Clone()
			cfg.ServerName, cfg.RootCAs = "localhost", p.pool
			_, err := dial(t, srv.addr, cfg)
			if err == nil || !strings.Contains(err.Error(), "remote error: tls: handshake failure") {
				t.Fatalf("client error %v, want a handshake_failure alert", err)
			}
			r := srv.result(t)
			if r.rejection == nil || !strings.Contains(r.rejection.Error(), tt.reason) {
				t.Fatalf("Rejection = %v, want one containing %q", r.rejection, tt.reason)
			}
			if tt.m.Stats().Rejected != 1 {
				t.Errorf("Stats.Rejected = %d", tt.m.Stats().Rejected)
			}
		})
	}
}

// TestWithoutRecorder: without RecordClientHello the manager still
// selects, by signature_algorithms, and counts the handshake.
func TestWithoutRecorder(t *testing.T) {
	t.Parallel()
	p := newTestPKI(t)
	m := mustNew(t, p.sources(idECDSA))
	srv := startServerWrap(t, m, nil, false)
	if _, err := dial(t, srv.addr, &tls.Config{ServerName: "localhost", RootCAs: p.pool}); err != nil {
		t.Fatal(err)
	}
	srv.result(t)
	if s := m.Stats(); s.HelloUnavailable != 1 || s.Selected[p.src[idECDSA].String()] != 1 {
		t.Errorf("stats %+v, want one selection without the ClientHello", s)
	}
}

// TestKeyCache: with the cache off, every full handshake reads and
// decrypts the PKCS#12 file (counted), resumed handshakes do not (they
// never sign, in TLS 1.3 and in TLS 1.2, where crypto/tls still asks for
// a certificate); with the cache on, nothing is decrypted after load.
func TestKeyCache(t *testing.T) {
	t.Parallel()
	p := newTestPKI(t)
	dir := t.TempDir()
	pw := writePassword(t, dir, "s3cret")
	p12 := func(name string) Source {
		path := filepath.Join(dir, name+".p12")
		if err := pki.WritePKCS12(path, p.ids[name], "s3cret", 0); err != nil {
			t.Fatal(err)
		}
		return Source{P12File: path}
	}
	sources := []Source{p12(idECDSA), p12(idRSA)}
	rsaKex := []uint16{tls.TLS_RSA_WITH_AES_128_GCM_SHA256}
	type run struct {
		cfg     *tls.Config
		n       int
		resumed int // of n; > 0 gives the client a session cache
	}
	tests := []struct {
		name string
		runs []run
		// full handshakes that sign or decrypt
		full int
	}{
		{"tls1.3 full", []run{{cfg: &tls.Config{MinVersion: tls.VersionTLS13}, n: 4}}, 4},
		{"tls1.3 resumed", []run{{cfg: &tls.Config{MinVersion: tls.VersionTLS13}, n: 4, resumed: 3}}, 1},
		{"tls1.2 full", []run{{cfg: &tls.Config{MaxVersion: tls.VersionTLS12}, n: 3}}, 3},
		{"tls1.2 resumed", []run{{cfg: &tls.Config{MaxVersion: tls.VersionTLS12}, n: 4, resumed: 3}}, 1},
		{"tls1.2 RSA key exchange (Decrypt)", []run{{cfg: &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: rsaKex}, n: 2}}, 2},
	}
	for _, cache := range []bool{true, false} {
		for _, tt := range tests {
			t.Run(map[bool]string{true: "on/", false: "off/"}[cache]+tt.name, func(t *testing.T) {
				m := mustNew(t, sources, WithKeyCache(cache), WithP12Password(pw))
				if d := m.Stats().Decryptions; d != 2 {
					t.Fatalf("%d decryptions at load, want 2", d)
				}
				srv := startServer(t, m, func(c *tls.Config) {
					c.CipherSuites = append(rsaKex, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)
				})
				for _, r := range tt.runs {
					resumed := 0
					var sessions tls.ClientSessionCache
					if r.resumed > 0 {
						sessions = tls.NewLRUClientSessionCache(1)
					}
					for range r.n {
						cfg := r.cfg.Clone()
						cfg.ServerName, cfg.RootCAs, cfg.ClientSessionCache = "localhost", p.pool, sessions
						st, err := dial(t, srv.addr, cfg)
						if err != nil {
							t.Fatalf("handshake: %v (server: %v)", err, srv.result(t).err)
						}
						if sr := srv.result(t); sr.err != nil {
							t.Fatal(sr.err)
						}
						if st.DidResume {
							resumed++
						}
					}
					if resumed != r.resumed {
						t.Fatalf("%d of %d handshakes resumed, want %d", resumed, r.n, r.resumed)
					}
				}
				s := m.Stats()
				wantDec, wantLoads := 2, 0
				if !cache {
					wantDec, wantLoads = 2+tt.full, tt.full
				}
				if s.Decryptions != int64(wantDec) || s.KeyLoads != int64(wantLoads) {
					t.Errorf("decryptions %d, key loads %d; want %d and %d", s.Decryptions, s.KeyLoads, wantDec, wantLoads)
				}
				if m.KeyCache() != cache {
					t.Errorf("KeyCache() = %v", m.KeyCache())
				}
			})
		}
	}

	// With the cache off, a file replaced after load is refused rather
	// than served unvalidated.
	t.Run("off/file replaced", func(t *testing.T) {
		src := p12(idECDSA)
		m := mustNew(t, []Source{src}, WithKeyCache(false), WithP12Password(pw))
		other, err := p.root.IssueServer([]string{"localhost"})
		if err != nil {
			t.Fatal(err)
		}
		if err := pki.WritePKCS12(src.P12File, other, "s3cret", 10); err != nil {
			t.Fatal(err)
		}
		srv := startServer(t, m, nil)
		if _, err := dial(t, srv.addr, &tls.Config{ServerName: "localhost", RootCAs: p.pool}); err == nil {
			t.Fatal("handshake succeeded with a replaced key file")
		}
		if r := srv.result(t); r.err == nil || !strings.Contains(r.err.Error(), "holds another certificate than at load") {
			t.Fatalf("server error %v", r.err)
		}
	})

	// PEM keys are read from disk per handshake too, without decryption.
	t.Run("off/pem", func(t *testing.T) {
		m := mustNew(t, p.sources(idECDSA), WithKeyCache(false))
		srv := startServer(t, m, nil)
		if _, err := dial(t, srv.addr, &tls.Config{ServerName: "localhost", RootCAs: p.pool}); err != nil {
			t.Fatal(err)
		}
		srv.result(t)
		if s := m.Stats(); s.KeyLoads != 1 || s.Decryptions != 0 {
			t.Errorf("stats %+v", s)
		}
	})
}

// TestIdentities: the manager reports its identities in preference order.
func TestIdentities(t *testing.T) {
	t.Parallel()
	p := newTestPKI(t)
	m := mustNew(t, p.sources(idRSA, idEd25519, idECDSA))
	var got []string
	for _, id := range m.Identities() {
		got = append(got, id.KeyType)
		if len(id.Names) != 2 || id.Chain != 1 || id.Source == "" {
			t.Errorf("identity %+v", id)
		}
	}
	if strings.Join(got, ",") != "ecdsa-p256,ed25519,rsa-2048" {
		t.Errorf("order %v", got)
	}
	if got := m.Identities()[0].Source; got != p.src[idECDSA].String() {
		t.Errorf("Source %q, want %q", got, p.src[idECDSA].String())
	}
}

// TestValidFor: SNI matching follows RFC 6125: exact names in any case,
// a wildcard stands for exactly one left-most label, IP SANs match IP
// literals.
func TestValidFor(t *testing.T) {
	t.Parallel()
	p := newTestPKI(t)
	m := mustNew(t, p.sources(idECDSA, idOther))
	other := m.ids[1]
	if other.name != p.src[idOther].String() {
		t.Fatalf("identity order: %s", other.name)
	}
	tests := []struct {
		name string
		want bool
	}{
		{"other.test", true},
		{"a.wild.test", true},
		{"wild.test", false},
		{"a.b.wild.test", false},
		{".wild.test", false},
		{"other.test.evil", false},
		{"127.0.0.1", false},
	}
	for _, tt := range tests {
		s := m.newSelection(&tls.ClientHelloInfo{ServerName: tt.name}, nil)
		if got := other.validFor(s.sni, s.sniIP); got != tt.want {
			t.Errorf("%q: %v, want %v", tt.name, got, tt.want)
		}
	}
	s := m.newSelection(&tls.ClientHelloInfo{ServerName: "127.0.0.1"}, nil)
	if !m.ids[0].validFor(s.sni, s.sniIP) {
		t.Error("the localhost identity is not valid for its IP SAN")
	}
}

// TestGetCertificateByHand: ClientHelloInfos built by hand (no
// connection, odd names) neither panic nor fail to select.
func TestGetCertificateByHand(t *testing.T) {
	t.Parallel()
	p := newTestPKI(t)
	m := mustNew(t, p.sources(idECDSA, idRSA))
	var logBuf bytes.Buffer
	m.SetLogger(slog.New(slog.NewTextHandler(&logBuf, nil))) // after New, as a server does
	tls13 := []uint16{tls.VersionTLS13}
	tests := []struct {
		name  string
		hello tls.ClientHelloInfo
		want  string // "" for a refusal
	}{
		{"no signature schemes", tls.ClientHelloInfo{SupportedVersions: tls13}, idECDSA},
		{"dot", tls.ClientHelloInfo{ServerName: ".", SupportedVersions: tls13}, idECDSA},
		{"rsa schemes", tls.ClientHelloInfo{SignatureSchemes: []tls.SignatureScheme{tls.PSSWithSHA256}, SupportedVersions: tls13}, idRSA},
		{"cert list without a connection", tls.ClientHelloInfo{Extensions: []uint16{extSignatureAlgsCert}, SupportedVersions: tls13}, idECDSA},
		{"nothing usable", tls.ClientHelloInfo{SignatureSchemes: []tls.SignatureScheme{tls.Ed25519}, SupportedVersions: tls13}, ""},
		{"no common version", tls.ClientHelloInfo{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := m.GetCertificate(&tt.hello)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if c != refusal {
					t.Fatalf("got a certificate, want the refusal")
				}
				return
			}
			if c == refusal || !sameCert(c.Leaf, p.ids[tt.want].Leaf) {
				t.Fatalf("did not get the %s identity", tt.want)
			}
		})
	}
	if s := m.Stats(); s.HelloUnavailable != 1 || s.Rejected != 2 {
		t.Errorf("stats %+v", s)
	}
	if n := strings.Count(logBuf.String(), "no acceptable server identity"); n != 2 {
		t.Errorf("%d rejections logged, want 2:\n%s", n, logBuf.String())
	}
}

// TestHelloRetryRequest: after a HelloRetryRequest crypto/tls chooses the
// certificate with the second ClientHello; the recorder holds the first,
// which carries the same signature algorithms, and selection works.
func TestHelloRetryRequest(t *testing.T) {
	t.Parallel()
	p := newTestPKI(t)
	m := mustNew(t, p.sources(idRSA, idECDSA))
	// The server accepts only P-256, for which a Go client sends no key
	// share up front: it must retry.
	srv := startServer(t, m, func(c *tls.Config) { c.CurvePreferences = []tls.CurveID{tls.CurveP256} })
	st, err := dial(t, srv.addr, &tls.Config{ServerName: "localhost", RootCAs: p.pool})
	if err != nil {
		t.Fatal(err)
	}
	srv.result(t)
	if st.CurveID != tls.CurveP256 || !st.HelloRetryRequest {
		t.Fatalf("negotiated %v, HelloRetryRequest %v: the test did not force a retry", st.CurveID, st.HelloRetryRequest)
	}
	if p.nameOf(st.PeerCertificates[0]) != idECDSA || m.Stats().HelloUnavailable != 0 {
		t.Errorf("got %s, stats %+v", p.nameOf(st.PeerCertificates[0]), m.Stats())
	}
}
