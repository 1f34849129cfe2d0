package proxy_test

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/proxy"
)

// proxyCA reads the CA the proxy wrote in dir, with its key.
func proxyCA(t *testing.T, dir string) *pki.CA {
	t.Helper()
	id, err := pki.LoadIdentityPEM(filepath.Join(dir, proxy.CACertFile), filepath.Join(dir, proxy.CAKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	return &pki.CA{Cert: id.Leaf, Key: id.Key}
}

// verifies reports whether a server certificate ca issues for host
// verifies for host against ca alone.
func verifies(t *testing.T, ca *pki.CA, host string) error {
	t.Helper()
	leaf, err := ca.IssueServer([]string{host})
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.Cert)
	_, err = leaf.Leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: roots})
	return err
}

// TestWrittenCAConstrained: the CA the proxy writes vouches only for
// what it may dial. By default (this machine) an address certificate
// verifies on loopback only, any name verifies (a name may resolve to
// loopback); with names only, those names (and names under them) verify
// and no address does.
func TestWrittenCAConstrained(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		allow     []string
		ok, notOK []string
	}{
		{"default", nil, []string{"localhost", "127.0.0.1", "127.9.9.9", "::1", "origin.test"}, []string{"10.0.0.1", "192.0.2.1", "::2"}},
		{"network", []string{"10.0.0.0/8"}, []string{"10.1.2.3", "any.example"}, []string{"127.0.0.1", "11.0.0.1"}},
		{"names", []string{"origin.test", "Other.Example."}, []string{"origin.test", "other.example", "a.origin.test"}, []string{"evil.example", "localhost", "127.0.0.1", "::1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if _, err := proxy.New(proxy.Options{PKIDir: dir, AllowDest: tc.allow}); err != nil {
				t.Fatal(err)
			}
			ca := proxyCA(t, dir)
			for _, h := range tc.ok {
				if err := verifies(t, ca, h); err != nil {
					t.Errorf("certificate for %s: %v", h, err)
				}
			}
			for _, h := range tc.notOK {
				var ce x509.CertificateInvalidError
				if err := verifies(t, ca, h); !errors.As(err, &ce) || ce.Reason != x509.CANotAuthorizedForThisName {
					t.Errorf("certificate for %s: %v; want refused by the CA's name constraints", h, err)
				}
			}
		})
	}
}

// TestMintedUnderConstraintsVerify: through a proxy whose CA is
// constrained to loopback, a client reaching the origin by address
// verifies the certificate minted for it.
func TestMintedUnderConstraintsVerify(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: true})
	for _, host := range []string{"127.0.0.1", "::ffff:127.0.0.1"} {
		c, resp := connect(t, p.addr, "["+host+"]:"+strconv.Itoa(org.port))
		if resp.StatusCode != 200 {
			t.Fatalf("CONNECT %s: %s (%s)", host, resp.Status, resp.Header.Get(proxy.ErrorHeader))
		}
		tc := tls.Client(c, &tls.Config{RootCAs: p.pool, ServerName: host})
		if err := tc.Handshake(); err != nil {
			t.Errorf("%s: %v", host, err)
		}
		tc.Close()
	}
}

// TestCAReusedOnlyWhenItCovers: a CA found in the PKI directory is used
// when its name constraints permit what the proxy may dial (a CA written
// without any, and a narrower policy, included); else the start is
// refused naming the directory and the destination.
func TestCAReusedOnlyWhenItCovers(t *testing.T) {
	t.Parallel()
	unconstrained := t.TempDir()
	ca := testpki.CA(t)
	if err := pki.WriteCertsPEM(filepath.Join(unconstrained, proxy.CACertFile), ca.Cert); err != nil {
		t.Fatal(err)
	}
	if err := pki.WriteKeyPEM(filepath.Join(unconstrained, proxy.CAKeyFile), ca.Key); err != nil {
		t.Fatal(err)
	}
	byDefault, byName := t.TempDir(), t.TempDir()
	for dir, allow := range map[string][]string{byDefault: nil, byName: {"origin.test"}} {
		if _, err := proxy.New(proxy.Options{PKIDir: dir, AllowDest: allow}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		dir   string
		allow []string
		want  string // in the error; "" for none
	}{
		{unconstrained, []string{"0.0.0.0/0", "::/0"}, ""},
		{byDefault, nil, ""},
		{byDefault, []string{"127.0.0.1", "localhost"}, ""},
		{byDefault, []string{"10.0.0.0/8"}, "do not permit 10.0.0.0/8 of AllowDest"},
		{byName, []string{"origin.test"}, ""},
		{byName, []string{"a.origin.test"}, ""},
		{byName, []string{"evil.example"}, "do not permit evil.example"},
		{byName, nil, "do not permit 127.0.0.0/8"},
	} {
		_, err := proxy.New(proxy.Options{PKIDir: tc.dir, AllowDest: tc.allow})
		var fe *field.Error
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s with %q: %v", tc.dir, tc.allow, err)
		case tc.want != "" && (!errors.As(err, &fe) || fe.Field != "PKIDir" || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s with %q: %v; want a PKIDir error saying %q", tc.dir, tc.allow, err, tc.want)
		}
	}
}
