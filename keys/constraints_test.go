package keys

import (
	"bytes"
	"crypto"
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
)

func TestParseConstraints(t *testing.T) {
	t.Parallel()
	def := DefaultConstraints()
	tests := []struct {
		in      string
		minRSA  int
		sha1    bool // SHA-1 forbidden
		md5     bool
		wantErr string
	}{
		{in: "", minRSA: 2048, sha1: true, md5: true},
		{in: "min-rsa=2048,no-sha1,no-md5", minRSA: 2048, sha1: true, md5: true},
		{in: "min-rsa=1024", minRSA: 1024, sha1: true, md5: true}, // relaxing one rule keeps the others
		{in: "allow-sha1", minRSA: 2048, md5: true},
		{in: "none", minRSA: 0},
		{in: "none,no-md5", md5: true},
		{in: "none,default", minRSA: 2048, sha1: true, md5: true},
		{in: " MIN-RSA=3072 , allow-md5 ", minRSA: 3072, sha1: true},
		{in: "min-rsa=0", sha1: true, md5: true},
		{in: "min-rsa=abc", wantErr: `"abc" is not a number of bits`},
		{in: "min-rsa=-1", wantErr: "between 0 and 16384"},
		{in: "no-sha256", wantErr: `unknown constraint "no-sha256" (valid: min-rsa=N`},
		{in: "sha1", wantErr: "unknown constraint"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, err := ParseConstraints(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			forbids := func(a x509.SignatureAlgorithm) bool { return slices.Contains(c.ForbiddenSignatureAlgorithms, a) }
			if c.MinRSABits != tt.minRSA || forbids(x509.SHA1WithRSA) != tt.sha1 || forbids(x509.ECDSAWithSHA1) != tt.sha1 || forbids(x509.MD5WithRSA) != tt.md5 {
				t.Errorf("got %v", c)
			}
			// String is ParseConstraints' syntax: it parses back to the same policy.
			back, err := ParseConstraints(c.String())
			if err != nil || back.String() != c.String() {
				t.Errorf("String %q parses back as %q, %v", c.String(), back.String(), err)
			}
		})
	}
	if got := def.String(); got != "none,min-rsa=2048,no-md5,no-sha1" {
		t.Errorf("DefaultConstraints().String() = %q", got)
	}
}

// TestLoadViolations: identities that break a rule are rejected at load
// with an error naming the file, the certificate and the rule; relaxed
// constraints accept them.
func TestLoadViolations(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hosts := []string{"localhost"}
	ecRoot := testpki.CA(t)
	rsaRoot := testpki.CA(t, pki.WithKey(testKey(t, pki.RSA2048)))
	sha1RSARoot := testpki.CA(t, pki.WithKey(testKey(t, pki.RSA2048)), pki.WithSignatureAlgorithm(x509.SHA1WithRSA))
	sha1Inter, err := ecRoot.NewIntermediate(pki.WithSignatureAlgorithm(x509.ECDSAWithSHA1))
	if err != nil {
		t.Fatal(err)
	}
	pw := writePassword(t, dir, "s3cret")
	issue := func(ca *pki.CA, opts ...pki.Option) *pki.Identity {
		id, err := ca.IssueServer(hosts, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	pemOf := func(name string, id *pki.Identity, extra ...*x509.Certificate) Source {
		return writePEM(t, dir, name, append(slices.Clone(id.Chain), extra...), id.Key)
	}
	p12Of := func(name string, key crypto.Signer, leaf *x509.Certificate, cas ...*x509.Certificate) Source {
		// go-pkcs12 directly: pki.EncodePKCS12 never includes the root.
		data, err := pkcs12.Modern2023.WithIterations(10).Encode(key, leaf, cas, "s3cret")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".p12")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return Source{P12File: path}
	}
	good := issue(ecRoot)
	other := issue(ecRoot)
	sha1Leaf := issue(ecRoot, pki.WithSignatureAlgorithm(x509.ECDSAWithSHA1))
	underSHA1Root := issue(sha1RSARoot)
	underSHA1Inter := issue(sha1Inter)
	small := issue(ecRoot, pki.WithKey(rsa1024(t)))
	now := time.Now()
	expired := issue(ecRoot, pki.WithValidity(now.Add(-48*time.Hour), now.Add(-24*time.Hour)))
	future := issue(ecRoot, pki.WithValidity(now.Add(24*time.Hour), now.Add(48*time.Hour)))
	client, err := ecRoot.IssueClient("tlsbench client 1")
	if err != nil {
		t.Fatal(err)
	}
	md5Leaf := md5Signed(t, issue(rsaRoot, pki.WithSignatureAlgorithm(x509.SHA1WithRSA)))

	tests := []struct {
		name    string
		src     Source
		relax   string   // constraints under which it loads ("" : never)
		want    []string // in the error, besides the file
		wantRul string
	}{
		{"sha1 leaf", pemOf("sha1-leaf", sha1Leaf), "allow-sha1",
			[]string{"certificate 1 of 1 (the leaf", "ECDSA-SHA1", "reissue it with SHA-256"}, "no-sha1"},
		{"sha1 root in chain file", pemOf("sha1-root", underSHA1Root, sha1RSARoot.Cert), "allow-sha1",
			[]string{"certificate 2 of 2 (the root", "SHA1-RSA"}, "no-sha1"},
		{"sha1 intermediate in pkcs12", p12Of("sha1-inter", underSHA1Inter.Key, underSHA1Inter.Leaf, sha1Inter.Cert), "allow-sha1",
			[]string{"certificate 2 of 2 (an intermediate", "ECDSA-SHA1"}, "no-sha1"},
		{"sha1 root in pkcs12", p12Of("sha1-root-p12", underSHA1Root.Key, underSHA1Root.Leaf, sha1RSARoot.Cert), "allow-sha1",
			[]string{"certificate 2 of 2 (the root", "SHA1-RSA"}, "no-sha1"},
		{"md5 leaf", pemOf("md5", md5Leaf), "allow-md5",
			[]string{"certificate 1 of 1", "MD5-RSA"}, "no-md5"},
		{"1024-bit rsa", pemOf("rsa1024", small), "min-rsa=1024",
			[]string{"1024-bit RSA key, under the 2048-bit minimum"}, "min-rsa"},
		{"1024-bit rsa in pkcs12", p12Of("rsa1024", small.Key, small.Leaf), "min-rsa=1024",
			[]string{"1024-bit RSA key"}, "min-rsa"},
		{"expired", pemOf("expired", expired), "", []string{"expired at"}, RuleValidity},
		{"not yet valid", pemOf("future", future), "", []string{"is not valid before"}, RuleValidity},
		{"key of another certificate", Source{CertFile: pemOf("good", good).CertFile, KeyFile: pemOf("other", other).KeyFile}, "",
			[]string{"other-key.pem", "does not belong to certificate 1 of 1"}, RuleKeyMatch},
		{"client certificate", pemOf("client", client), "", []string{"no serverAuth", "client certificate"}, RuleServerAuth},
		{"chain of another CA", pemOf("wrong-chain", good, rsaRoot.Cert), "", []string{"was not issued by certificate 2"}, RuleChainOrder},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New([]Source{tt.src}, WithP12Password(pw))
			if err == nil {
				t.Fatal("loaded")
			}
			var v *Violation
			if !errors.As(err, &v) {
				t.Fatalf("error %v is not a *Violation", err)
			}
			if v.Rule != tt.wantRul {
				t.Errorf("rule %q, want %q (%v)", v.Rule, tt.wantRul, err)
			}
			for _, w := range append([]string{tt.src.file(), "(rule " + tt.wantRul + ")"}, tt.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if tt.relax == "" {
				return
			}
			c, err := ParseConstraints(tt.relax)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := New([]Source{tt.src}, WithP12Password(pw), WithConstraints(c)); err != nil {
				t.Errorf("with --constraints %s: %v", tt.relax, err)
			}
		})
	}

	// Every identity's problems are reported at once, each with its file.
	_, err = New([]Source{pemOf("sha1-leaf", sha1Leaf), pemOf("rsa1024", small), pemOf("good", good)})
	for _, w := range []string{"sha1-leaf.pem", "rule no-sha1", "rsa1024.pem", "rule min-rsa"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not contain %q", err, w)
		}
	}
}

// md5Signed returns id with its leaf's signature algorithm relabelled
// from sha1WithRSA to md5WithRSA. crypto/x509 refuses to create MD5
// signatures; the manager only reads the algorithm, so the now invalid
// signature does not matter.
func md5Signed(t testing.TB, id *pki.Identity) *pki.Identity {
	t.Helper()
	sha1OID := []byte{0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x05}
	md5OID := []byte{0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x04}
	der := bytes.ReplaceAll(id.Leaf.Raw, sha1OID, md5OID)
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	if leaf.SignatureAlgorithm != x509.MD5WithRSA {
		t.Fatalf("relabelled certificate has %v", leaf.SignatureAlgorithm)
	}
	return &pki.Identity{Leaf: leaf, Chain: []*x509.Certificate{leaf}, Key: id.Key}
}

// TestLoadErrors: files that cannot be loaded are refused with an error
// naming the file and the fix.
func TestLoadErrors(t *testing.T) {
	// Not parallel: it sets the password environment variable.
	p := newTestPKI(t)
	dir := t.TempDir()
	p12 := filepath.Join(dir, "server.p12")
	if err := pki.WritePKCS12(p12, p.ids[idECDSA], "right", 10); err != nil {
		t.Fatal(err)
	}
	src := Source{P12File: p12}
	tests := []struct {
		name    string
		sources []Source
		opts    []Option
		env     string // TLSBENCH_P12_PASSWORD
		want    []string
		is      error
	}{
		{name: "no identity", want: []string{"no server identity"}},
		{name: "wrong password", sources: []Source{src}, opts: []Option{WithP12Password(writePassword(t, dir, "wrong"))},
			want: []string{p12, "wrong password"}, is: pki.ErrWrongPassword},
		{name: "no password", sources: []Source{src}, want: []string{p12, "(P12PasswordFile FILE)", PasswordEnv}},
		{name: "empty password file", sources: []Source{src}, opts: []Option{WithP12Password(writePassword(t, t.TempDir(), ""))},
			want: []string{"first line is empty"}},
		{name: "pem given as pkcs12", sources: []Source{{P12File: p.src[idECDSA].CertFile}}, env: "x",
			want: []string{"PEM file, not PKCS#12"}},
		{name: "missing file", sources: []Source{{CertFile: filepath.Join(dir, "nope.pem"), KeyFile: filepath.Join(dir, "nope.pem")}},
			want: []string{"nope.pem", "no such file"}},
		{name: "certificate given as key", sources: []Source{{CertFile: p.src[idECDSA].CertFile, KeyFile: p.src[idECDSA].CertFile}},
			want: []string{"no private key block", "Give the key file here"}},
		{name: "given twice", sources: []Source{p.src[idECDSA], p.src[idECDSA]}, want: []string{"given twice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(PasswordEnv, tt.env)
			if tt.env == "" {
				os.Unsetenv(PasswordEnv)
			}
			_, err := New(tt.sources, tt.opts...)
			if err == nil {
				t.Fatal("loaded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
		})
	}

	// The environment variable is the default password source.
	t.Setenv(PasswordEnv, "right")
	if _, err := New([]Source{src}); err != nil {
		t.Fatalf("password from %s: %v", PasswordEnv, err)
	}
}

func TestParseSource(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Source
		wantErr bool
	}{
		{in: "server.pem,server-key.pem", want: Source{CertFile: "server.pem", KeyFile: "server-key.pem"}},
		{in: " a.pem , b.pem ", want: Source{CertFile: "a.pem", KeyFile: "b.pem"}},
		{in: "server.p12", want: Source{P12File: "server.p12"}},
		{in: "dir/SERVER.PFX", want: Source{P12File: "dir/SERVER.PFX"}},
		{in: "combined.pem", want: Source{CertFile: "combined.pem", KeyFile: "combined.pem"}},
		{in: "", wantErr: true},
		{in: "a.pem,", wantErr: true},
		{in: "a.pem,b.pem,c.pem", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSource(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("got %+v, want an error", got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
			if again, _ := ParseSource(got.String()); again != got {
				t.Errorf("String %q parses as %+v", got.String(), again)
			}
		})
	}
}

func TestPasswordFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct{ content, want string }{
		{"s3cret\n", "s3cret"},
		{"s3cret\r\n", "s3cret"},
		{"s3cret", "s3cret"},
		{"two words \nsecond line\n", "two words "},
	}
	for i, tt := range tests {
		path := filepath.Join(dir, "pw"+string(rune('a'+i)))
		os.WriteFile(path, []byte(tt.content), 0o600)
		got, err := PasswordFile(path).Read()
		if err != nil || got != tt.want {
			t.Errorf("%q: got %q, %v; want %q", tt.content, got, err, tt.want)
		}
		if s := PasswordFile(path).String(); strings.Contains(s, tt.want) && tt.want != "" {
			t.Errorf("String() %q reveals the password", s)
		}
	}
}
