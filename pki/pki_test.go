package pki_test

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
)

func TestParseKeyType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    pki.KeyType
		wantErr string
	}{
		{in: "ecdsa-p256", want: pki.ECDSAP256},
		{in: "ecdsa-p384", want: pki.ECDSAP384},
		{in: "rsa-2048", want: pki.RSA2048},
		{in: "rsa-3072", want: pki.RSA3072},
		{in: "ed25519", want: pki.Ed25519},
		{in: " RSA-2048 ", want: pki.RSA2048},
		{in: "rsa-1024", wantErr: `unknown key type "rsa-1024" (valid: ecdsa-p256, ecdsa-p384, rsa-2048, rsa-3072, ed25519)`},
		{in: "", wantErr: "valid: ecdsa-p256"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := pki.ParseKeyType(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseKeyType(%q) error = %v, want it to contain %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseKeyType(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestParseKeyTypes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    []pki.KeyType
		wantErr string
	}{
		{in: "ecdsa-p256,rsa-2048,ed25519", want: []pki.KeyType{pki.ECDSAP256, pki.RSA2048, pki.Ed25519}},
		{in: "ed25519, ecdsa-p384,", want: []pki.KeyType{pki.Ed25519, pki.ECDSAP384}},
		{in: "ed25519,ed25519", wantErr: "listed twice"},
		{in: ",", wantErr: "empty key type list"},
		{in: "ecdsa-p256,dsa", wantErr: `unknown key type "dsa"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := pki.ParseKeyTypes(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("ParseKeyTypes(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestKeyTypeText(t *testing.T) {
	t.Parallel()
	var k pki.KeyType
	if err := k.UnmarshalText([]byte("ED25519")); err != nil || k != pki.Ed25519 {
		t.Fatalf("UnmarshalText = %q, %v", k, err)
	}
	if err := k.UnmarshalText([]byte("dsa")); err == nil {
		t.Fatal("UnmarshalText(dsa) succeeded")
	}
	if b, _ := pki.RSA3072.MarshalText(); string(b) != "rsa-3072" {
		t.Fatalf("MarshalText = %q", b)
	}
	if pki.KeyType("rsa-1024").Valid() || !pki.ECDSAP384.Valid() {
		t.Fatal("Valid is wrong")
	}
}

// TestGenerate generates every key type once (the keys are reused by the
// other tests) and checks that each really is what its name says.
func TestGenerate(t *testing.T) {
	t.Parallel()
	for _, kt := range pki.KeyTypes() {
		t.Run(string(kt), func(t *testing.T) {
			key := testKey(t, kt)
			got, ok := pki.KeyTypeOf(key.Public())
			if !ok || got != kt {
				t.Fatalf("KeyTypeOf(generated %s key) = %q, %v", kt, got, ok)
			}
			switch k := key.(type) {
			case *ecdsa.PrivateKey:
				want := map[pki.KeyType]string{pki.ECDSAP256: "P-256", pki.ECDSAP384: "P-384"}[kt]
				if k.Curve.Params().Name != want {
					t.Fatalf("curve %s, want %s", k.Curve.Params().Name, want)
				}
			case *rsa.PrivateKey:
				want := map[pki.KeyType]int{pki.RSA2048: 2048, pki.RSA3072: 3072}[kt]
				if k.N.BitLen() != want {
					t.Fatalf("RSA key has %d bits, want %d", k.N.BitLen(), want)
				}
			case ed25519.PrivateKey:
				if kt != pki.Ed25519 {
					t.Fatalf("%s generated an Ed25519 key", kt)
				}
			default:
				t.Fatalf("unexpected key type %T", key)
			}
		})
	}
	if _, err := pki.KeyType("dsa-1024").Generate(); err == nil || !strings.Contains(err.Error(), "valid: ") {
		t.Fatalf("Generate(dsa-1024) error = %v, want one that lists the valid types", err)
	}
}

func TestGenerateRSA1024(t *testing.T) {
	t.Parallel()
	key, err := pki.GenerateRSA(1024)
	if err != nil {
		t.Fatal(err)
	}
	if bits := key.(*rsa.PrivateKey).N.BitLen(); bits != 1024 {
		t.Fatalf("got %d bits", bits)
	}
	if kt, ok := pki.KeyTypeOf(key.Public()); ok {
		t.Fatalf("KeyTypeOf(RSA 1024) = %q, want no key type", kt)
	}
	ca := testpki.CA(t)
	id, err := ca.IssueServer(nil, pki.WithKey(key))
	if err != nil {
		t.Fatalf("issuing for a 1024-bit key (needed by negative tests): %v", err)
	}
	if id.Leaf.PublicKey.(*rsa.PublicKey).N.BitLen() != 1024 {
		t.Fatal("leaf does not carry the 1024-bit key")
	}
	_, err = ca.IssueServer(nil, pki.WithKey(key), pki.WithKeyType(pki.RSA2048))
	if err == nil || !strings.Contains(err.Error(), "RSA 1024-bit") {
		t.Fatalf("WithKey(1024) + WithKeyType(rsa-2048) error = %v, want a conflict naming the key", err)
	}
}

// TestServerHandshake is the package's main promise: an issued server
// identity of every key type completes a verified handshake, with and
// without an intermediate, in TLS 1.2 and 1.3.
func TestServerHandshake(t *testing.T) {
	t.Parallel()
	versions := []struct {
		name string
		v    uint16
	}{{"tls1.2", tls.VersionTLS12}, {"tls1.3", tls.VersionTLS13}}
	for _, intermediate := range []bool{false, true} {
		root := testpki.CA(t)
		ca := issuerUnder(t, root, intermediate)
		for _, kt := range pki.KeyTypes() {
			id, err := ca.IssueServer(nil, pki.WithKey(testKey(t, kt)))
			if err != nil {
				t.Fatal(err)
			}
			for _, ver := range versions {
				name := string(kt) + "/" + ver.name
				if intermediate {
					name += "/intermediate"
				}
				t.Run(name, func(t *testing.T) {
					scfg := serverConfig(id)
					scfg.MinVersion, scfg.MaxVersion = ver.v, ver.v
					ccfg := &tls.Config{RootCAs: root.Pool(), ServerName: "localhost", MinVersion: ver.v, MaxVersion: ver.v}
					res := handshake(t, scfg, ccfg)
					if res.clientErr != nil || res.serverErr != nil {
						t.Fatalf("handshake failed: client %v, server %v", res.clientErr, res.serverErr)
					}
					if res.client.Version != ver.v {
						t.Fatalf("negotiated %x, want %x", res.client.Version, ver.v)
					}
					chain := res.client.VerifiedChains[0]
					wantLen := 2
					if intermediate {
						wantLen = 3
					}
					if len(chain) != wantLen || !chain[len(chain)-1].Equal(root.Root()) {
						t.Fatalf("verified chain has %d certificates ending in %s, want %d ending in the root", len(chain), chain[len(chain)-1].Subject, wantLen)
					}
					if len(res.client.PeerCertificates) != wantLen-1 {
						t.Fatalf("server sent %d certificates, want %d (leaf and intermediates, no root)", len(res.client.PeerCertificates), wantLen-1)
					}
				})
			}
		}
	}
}

// TestClientAuth checks that issued client identities pass server-side
// verification (RequireAndVerifyClientCert against the root pool) and that
// the server sees exactly the identity presented.
func TestClientAuth(t *testing.T) {
	t.Parallel()
	for _, intermediate := range []bool{false, true} {
		root := testpki.CA(t)
		ca := issuerUnder(t, root, intermediate)
		srvID, err := ca.IssueServer(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, kt := range []pki.KeyType{pki.ECDSAP256, pki.Ed25519, pki.RSA2048} {
			cliID, err := ca.IssueClient("client "+string(kt), pki.WithKey(testKey(t, kt)))
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
				name := string(kt) + "/" + tls.VersionName(v)
				if intermediate {
					name += "/intermediate"
				}
				t.Run(name, func(t *testing.T) {
					scfg := serverConfig(srvID)
					scfg.ClientAuth, scfg.ClientCAs, scfg.MaxVersion = tls.RequireAndVerifyClientCert, root.Pool(), v
					ccfg := &tls.Config{RootCAs: root.Pool(), ServerName: "localhost", MaxVersion: v,
						Certificates: []tls.Certificate{cliID.TLSCertificate()}}
					res := handshake(t, scfg, ccfg)
					if res.clientErr != nil || res.serverErr != nil {
						t.Fatalf("handshake failed: client %v, server %v", res.clientErr, res.serverErr)
					}
					if got := pki.Thumbprint(res.server.PeerCertificates[0]); got != cliID.Thumbprint() {
						t.Fatal("server saw a different client certificate than the one presented")
					}
					if len(res.server.VerifiedChains) == 0 {
						t.Fatal("server did not verify the client chain")
					}
				})
			}
		}
	}
}

// TestClientAuthRejected shows the certificates are not accepted blindly:
// the server rejects a foreign CA, a server certificate used as a client
// certificate (wrong extended key usage) and an expired client certificate.
// It runs over loopback TCP, not net.Pipe: in TLS 1.2 the server rejects the
// client's Certificate message and writes an alert while the client is still
// writing the rest of its flight, and with an unbuffered pipe both block.
func TestClientAuthRejected(t *testing.T) {
	t.Parallel()
	root := testpki.CA(t)
	ca := issuerUnder(t, root, false)
	other := testpki.CA(t)
	srvID, err := ca.IssueServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := other.IssueClient("foreign")
	if err != nil {
		t.Fatal(err)
	}
	expired, err := ca.IssueClient("expired", pki.WithValidity(time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		client  *pki.Identity
		wantErr string
	}{
		{"foreign CA", foreign, "unknown authority"},
		{"server cert as client cert", srvID, "key usage"},
		{"expired", expired, "expired"},
	}
	for _, tt := range tests {
		for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
			t.Run(tt.name+"/"+tls.VersionName(v), func(t *testing.T) {
				scfg := serverConfig(srvID)
				scfg.ClientAuth, scfg.ClientCAs, scfg.MaxVersion = tls.RequireAndVerifyClientCert, root.Pool(), v
				ccfg := &tls.Config{RootCAs: root.Pool(), ServerName: "localhost", MaxVersion: v,
					Certificates: []tls.Certificate{tt.client.TLSCertificate()}}
				res := handshakeTCP(t, scfg, ccfg)
				if res.serverErr == nil || !strings.Contains(res.serverErr.Error(), tt.wantErr) {
					t.Fatalf("server error = %v, want one containing %q", res.serverErr, tt.wantErr)
				}
				if res.clientErr == nil {
					t.Fatal("client did not learn of the rejection")
				}
			})
		}
	}
}

func TestIssueServerHosts(t *testing.T) {
	t.Parallel()
	root := testpki.CA(t)
	ca := issuerUnder(t, root, false)
	tests := []struct {
		name      string
		hosts     []string
		wantDNS   []string
		wantIPs   []string
		verifyAs  []string
		wantCN    string
		wantError string
	}{
		{name: "default", wantDNS: []string{"localhost"}, wantIPs: []string{"127.0.0.1", "::1"},
			verifyAs: []string{"localhost", "127.0.0.1", "::1"}, wantCN: "localhost"},
		{name: "custom", hosts: []string{"bench.example.test", "*.svc.example.test", "[::1]", "10.0.0.7"},
			wantDNS: []string{"bench.example.test", "*.svc.example.test"}, wantIPs: []string{"::1", "10.0.0.7"},
			verifyAs: []string{"bench.example.test", "a.svc.example.test", "10.0.0.7"}, wantCN: "bench.example.test"},
		{name: "ip only", hosts: []string{"192.0.2.1"}, wantIPs: []string{"192.0.2.1"}, verifyAs: []string{"192.0.2.1"}, wantCN: "192.0.2.1"},
		{name: "bad host", hosts: []string{"local host"}, wantError: `host "local host" is neither a DNS name nor an IP address`},
		{name: "url", hosts: []string{"https://localhost"}, wantError: "neither a DNS name nor an IP address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := ca.IssueServer(tt.hosts)
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("error = %v, want %q", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(id.Leaf.DNSNames, tt.wantDNS) {
				t.Errorf("DNSNames = %v, want %v", id.Leaf.DNSNames, tt.wantDNS)
			}
			var ips []string
			for _, ip := range id.Leaf.IPAddresses {
				ips = append(ips, ip.String())
			}
			if !slices.Equal(ips, tt.wantIPs) {
				t.Errorf("IPAddresses = %v, want %v", ips, tt.wantIPs)
			}
			if id.Leaf.Subject.CommonName != tt.wantCN {
				t.Errorf("CN = %q, want %q", id.Leaf.Subject.CommonName, tt.wantCN)
			}
			for _, h := range tt.verifyAs {
				_, err := id.Leaf.Verify(x509.VerifyOptions{DNSName: h, Roots: root.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
				if err != nil {
					t.Errorf("verify as %s: %v", h, err)
				}
			}
			if _, err := id.Leaf.Verify(x509.VerifyOptions{DNSName: "other.example", Roots: root.Pool()}); err == nil {
				t.Error("certificate verified for a host it was not issued for")
			}
		})
	}
}

func TestCertificateProfile(t *testing.T) {
	t.Parallel()
	root := testpki.CA(t)
	ca := issuerUnder(t, root, true)
	srv, err := ca.IssueServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	rsaSrv, err := ca.IssueServer(nil, pki.WithKey(testKey(t, pki.RSA2048)))
	if err != nil {
		t.Fatal(err)
	}
	cli, err := ca.IssueClient("alice")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ca.IssueClient(""); err == nil || !strings.Contains(err.Error(), "empty common name") {
		t.Fatalf("IssueClient(\"\") error = %v", err)
	}
	if named, err := ca.IssueClient("ignored", pki.WithCommonName("bob")); err != nil || named.Leaf.Subject.CommonName != "bob" {
		t.Fatalf("WithCommonName: %v", err)
	}

	if r := root.Root(); !r.IsCA || r.Subject.CommonName != pki.DefaultRootName || !r.Equal(ca.Root()) {
		t.Fatalf("root: IsCA=%v CN=%q", r.IsCA, r.Subject.CommonName)
	}
	if !ca.Cert.IsCA || ca.Cert.Subject.CommonName != pki.DefaultIntermediateName {
		t.Fatalf("intermediate: IsCA=%v CN=%q", ca.Cert.IsCA, ca.Cert.Subject.CommonName)
	}
	if got := ca.Intermediates(); len(got) != 1 || !got[0].Equal(ca.Cert) || len(root.Intermediates()) != 0 {
		t.Fatal("Intermediates is wrong")
	}
	if srv.Leaf.IsCA || !slices.Equal(srv.Leaf.ExtKeyUsage, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}) {
		t.Fatalf("server leaf: IsCA=%v EKU=%v", srv.Leaf.IsCA, srv.Leaf.ExtKeyUsage)
	}
	if !slices.Equal(cli.Leaf.ExtKeyUsage, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}) || cli.Leaf.Subject.CommonName != "alice" {
		t.Fatalf("client leaf: EKU=%v CN=%q", cli.Leaf.ExtKeyUsage, cli.Leaf.Subject.CommonName)
	}
	if srv.Leaf.KeyUsage&x509.KeyUsageKeyEncipherment != 0 || rsaSrv.Leaf.KeyUsage&x509.KeyUsageKeyEncipherment == 0 {
		t.Fatal("keyEncipherment must be set for RSA leaves only")
	}
	for _, id := range []*pki.Identity{srv, cli} {
		if len(id.Chain) != 2 || !id.Chain[0].Equal(id.Leaf) || !id.Chain[1].Equal(ca.Cert) {
			t.Fatalf("chain of %s is not leaf+intermediate", id.Leaf.Subject.CommonName)
		}
	}
	if srv.Leaf.SerialNumber.Cmp(cli.Leaf.SerialNumber) == 0 {
		t.Fatal("two certificates share a serial number")
	}
	now := time.Now()
	if d := now.Sub(srv.Leaf.NotBefore); d < 59*time.Minute || d > 61*time.Minute {
		t.Errorf("NotBefore is %v before now, want about an hour", d)
	}
	if d := srv.Leaf.NotAfter.Sub(now); d < 364*24*time.Hour || d > 367*24*time.Hour {
		t.Errorf("NotAfter is %v after now, want about a year", d)
	}

	tc := srv.TLSCertificate()
	if len(tc.Certificate) != 2 || tc.Leaf != srv.Leaf || tc.PrivateKey != srv.Key {
		t.Fatal("TLSCertificate does not carry chain, leaf and key")
	}
}

func TestWithValidity(t *testing.T) {
	t.Parallel()
	ca := testpki.CA(t)
	nb := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	na := nb.Add(time.Hour)
	id, err := ca.IssueClient("old", pki.WithValidity(nb, na))
	if err != nil {
		t.Fatal(err)
	}
	if !id.Leaf.NotBefore.Equal(nb) || !id.Leaf.NotAfter.Equal(na) {
		t.Fatalf("validity %v..%v, want %v..%v", id.Leaf.NotBefore, id.Leaf.NotAfter, nb, na)
	}
	if _, err := ca.IssueClient("backwards", pki.WithValidity(na, nb)); err == nil || !strings.Contains(err.Error(), "before it starts") {
		t.Fatalf("reversed validity error = %v", err)
	}
}

// TestWeakSignatures documents what Go 1.26 does with weak signature
// algorithms, which the key manager's constraint tests rely on: SHA-1
// certificates can still be created (x509.CreateCertificate signs them) but
// are never verified; MD5 cannot even be created.
func TestWeakSignatures(t *testing.T) {
	t.Parallel()
	rsaKey := testKey(t, pki.RSA2048)
	tests := []struct {
		name    string
		caKey   pki.Option
		alg     x509.SignatureAlgorithm
		wantErr string // from issuing; empty means issuing succeeds
	}{
		{name: "sha1-rsa", caKey: pki.WithKey(rsaKey), alg: x509.SHA1WithRSA},
		{name: "sha1-ecdsa", caKey: pki.WithKeyType(pki.ECDSAP256), alg: x509.ECDSAWithSHA1},
		{name: "md5-rsa", caKey: pki.WithKey(rsaKey), alg: x509.MD5WithRSA, wantErr: "MD5"},
		{name: "alg does not fit key", caKey: pki.WithKeyType(pki.ECDSAP256), alg: x509.SHA256WithRSA, wantErr: "issuer's ECDSA P-256 key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ca := testpki.CA(t, tt.caKey)
			id, err := ca.IssueServer(nil, pki.WithSignatureAlgorithm(tt.alg))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if id.Leaf.SignatureAlgorithm != tt.alg {
				t.Fatalf("leaf signed with %v, want %v", id.Leaf.SignatureAlgorithm, tt.alg)
			}
			// Verify reports it as an unknown authority, with the reason
			// only in the message; CheckSignatureFrom gives the typed error.
			if _, err := id.Leaf.Verify(x509.VerifyOptions{Roots: ca.Pool()}); err == nil || !strings.Contains(err.Error(), "insecure algorithm") {
				t.Fatalf("Verify of a %v leaf = %v, want a rejection for an insecure algorithm", tt.alg, err)
			}
			var insecure x509.InsecureAlgorithmError
			if err := id.Leaf.CheckSignatureFrom(ca.Cert); !errors.As(err, &insecure) {
				t.Fatalf("CheckSignatureFrom of a %v leaf = %v, want x509.InsecureAlgorithmError", tt.alg, err)
			}
		})
	}

	// A SHA-1 intermediate breaks the chain the same way.
	root := testpki.CA(t, pki.WithKey(rsaKey))
	inter, err := root.NewIntermediate(pki.WithSignatureAlgorithm(x509.SHA1WithRSA))
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := inter.IssueServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaf.Leaf.Verify(x509.VerifyOptions{Roots: root.Pool(), Intermediates: certPool(inter.Intermediates())}); err == nil {
		t.Fatal("chain with a SHA-1 intermediate verified")
	}

	// A root's own signature is never checked (roots are trusted as such),
	// so a SHA-1 self-signed root still anchors a valid chain in Go. A
	// policy that forbids SHA-1 roots has to check them itself.
	sha1Root := testpki.CA(t, pki.WithKey(rsaKey), pki.WithSignatureAlgorithm(x509.SHA1WithRSA))
	if sha1Root.Cert.SignatureAlgorithm != x509.SHA1WithRSA {
		t.Fatalf("root signed with %v", sha1Root.Cert.SignatureAlgorithm)
	}
	okLeaf, err := sha1Root.IssueServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := okLeaf.Leaf.Verify(x509.VerifyOptions{Roots: sha1Root.Pool()}); err != nil {
		t.Fatalf("SHA-256 leaf under a SHA-1 root: %v", err)
	}
}

func certPool(certs []*x509.Certificate) *x509.CertPool {
	p := x509.NewCertPool()
	for _, c := range certs {
		p.AddCert(c)
	}
	return p
}

func TestThumbprint(t *testing.T) {
	t.Parallel()
	ca := testpki.CA(t)
	id, err := ca.IssueClient("thumb")
	if err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256(id.Leaf.Raw)
	if got := pki.Thumbprint(id.Leaf); got != want {
		t.Fatalf("Thumbprint = %x, want %x", got, want)
	}
	if got := id.Thumbprint(); got != want {
		t.Fatalf("Identity.Thumbprint = %x, want %x", got, want)
	}
	if got := pki.ThumbprintHex(id.Leaf); got != hex.EncodeToString(want[:]) || strings.ToLower(got) != got || len(got) != 64 {
		t.Fatalf("ThumbprintHex = %q", got)
	}
	other, err := ca.IssueClient("thumb")
	if err != nil {
		t.Fatal(err)
	}
	if other.Thumbprint() == id.Thumbprint() {
		t.Fatal("two identities with the same name share a thumbprint")
	}
}

func TestWithKeyReuse(t *testing.T) {
	t.Parallel()
	ca := testpki.CA(t)
	key := testKey(t, pki.ECDSAP256)
	a, err := ca.IssueServer([]string{"a.test"}, pki.WithKey(key))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ca.IssueServer([]string{"b.test"}, pki.WithKey(key), pki.WithKeyType(pki.ECDSAP256))
	if err != nil {
		t.Fatal(err)
	}
	if a.Key != key || b.Key != key || a.Leaf.Equal(b.Leaf) {
		t.Fatal("WithKey not honoured")
	}
	if _, err := ca.IssueServer(nil, pki.WithKey(key), pki.WithKeyType(pki.Ed25519)); err == nil {
		t.Fatal("contradicting WithKey and WithKeyType accepted")
	}
	// The CA key can be given too, and signing uses it.
	edCA := testpki.CA(t, pki.WithKey(testKey(t, pki.Ed25519)))
	if edCA.Cert.SignatureAlgorithm != x509.PureEd25519 {
		t.Fatalf("Ed25519 CA signed with %v", edCA.Cert.SignatureAlgorithm)
	}
	leaf, err := edCA.IssueServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := leaf.Leaf.CheckSignatureFrom(edCA.Cert); err != nil {
		t.Fatal(err)
	}
}

// TestKeyTypeName: keys of the types tlsbench issues are named as those
// types, other RSA sizes and curves in the same form, anything else not.
func TestKeyTypeName(t *testing.T) {
	t.Parallel()
	rsa1024, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	p521, err := ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p256, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	edPub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	x, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pub  any
		want string
	}{
		{&rsa1024.PublicKey, "rsa-1024"},
		{&p521.PublicKey, "ecdsa-p521"},
		{&p256.PublicKey, string(pki.ECDSAP256)},
		{edPub, string(pki.Ed25519)},
		{x.PublicKey(), ""},
	} {
		if got := pki.KeyTypeName(tc.pub); got != tc.want {
			t.Errorf("%T: %q, want %q", tc.pub, got, tc.want)
		}
	}
}
