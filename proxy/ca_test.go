package proxy_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/proxy"
)

// TestCAHardened: the CA the proxy writes signs leaves only (path length
// zero, so that its key cannot make a CA below it) and lives 90 days;
// the certificates it mints live a week.
func TestCAHardened(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: true})
	certs, err := pki.LoadCertsPEM(p.CAFile())
	if err != nil {
		t.Fatal(err)
	}
	ca := certs[0]
	if !ca.IsCA || !ca.MaxPathLenZero || ca.MaxPathLen != 0 {
		t.Errorf("CA path length %d (zero set: %v), want 0", ca.MaxPathLen, ca.MaxPathLenZero)
	}
	if life := time.Until(ca.NotAfter); life < 89*24*time.Hour || life > 91*24*time.Hour {
		t.Errorf("CA lives %v more, want 90 days", life.Round(time.Hour))
	}
	tc := p.tunnel(t, org, nil)
	defer tc.Close()
	leaf := tc.ConnectionState().PeerCertificates[0]
	if life := time.Until(leaf.NotAfter); life < 6*24*time.Hour || life > 7*24*time.Hour+time.Minute {
		t.Errorf("minted certificate lives %v more, want 7 days", life.Round(time.Hour))
	}
}

// TestCARenewedNearItsEnd: a CA in the PKI directory that ends within
// two weeks is replaced at start, and the start says so; one with time
// left is kept.
func TestCARenewedNearItsEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Now()
	old, err := pki.NewCA(pki.WithValidity(now.Add(-80*24*time.Hour), now.Add(5*24*time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	writeCAPair(t, old, dir)
	log := &syncBuf{}
	p, err := proxy.New(proxy.Options{PKIDir: dir}, proxy.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	if err != nil {
		t.Fatal(err)
	}
	certs, err := pki.LoadCertsPEM(p.CAFile())
	if err != nil {
		t.Fatal(err)
	}
	if certs[0].Equal(old.Cert) || time.Until(certs[0].NotAfter) < 80*24*time.Hour {
		t.Fatalf("CA ending %s kept; want a new one", certs[0].NotAfter.Format(time.DateOnly))
	}
	if !strings.Contains(log.String(), "the proxy's CA ends soon: wrote a new one") {
		t.Errorf("log lacks the renewal:\n%s", log)
	}
	// The new one is kept by the next start.
	p2, err := proxy.New(proxy.Options{PKIDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := pki.LoadCertsPEM(p2.CAFile()); !again[0].Equal(certs[0]) {
		t.Error("a CA with 90 days left was replaced")
	}
}

// writeCAPair writes ca as the proxy's CA in dir.
func writeCAPair(t *testing.T, ca *pki.CA, dir string) {
	t.Helper()
	if err := pki.WriteCertsPEM(filepath.Join(dir, proxy.CACertFile), ca.Cert); err != nil {
		t.Fatal(err)
	}
	if err := pki.WriteKeyPEM(filepath.Join(dir, proxy.CAKeyFile), ca.Key); err != nil {
		t.Fatal(err)
	}
}

// TestCAFilesPrivate: a CA key that group or others can reach, or a PKI
// directory they can write, is refused with the file and the fix, as
// OpenSSH refuses an open key; the owner's own modes are served.
func TestCAFilesPrivate(t *testing.T) {
	t.Parallel()
	ca, err := pki.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name            string
		dirMode, keyMod os.FileMode
		given           bool // --ca-cert and --ca-key rather than the directory
		field, fix      string
	}{
		{"private", 0o700, 0o600, false, "", ""},
		{"key readable", 0o700, 0o644, false, "PKIDir", "chmod 600 "},
		{"key group", 0o700, 0o640, false, "PKIDir", "chmod 600 "},
		{"directory writable", 0o777, 0o600, false, "PKIDir", "chmod 700 "},
		{"directory group-writable", 0o770, 0o600, false, "PKIDir", "chmod 700 "},
		{"directory readable", 0o755, 0o600, false, "", ""},
		{"given key private", 0o755, 0o400, true, "", ""},
		{"given key readable", 0o755, 0o604, true, "CAKey", "chmod 600 "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "pki")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			writeCAPair(t, ca, dir)
			cert, key := filepath.Join(dir, proxy.CACertFile), filepath.Join(dir, proxy.CAKeyFile)
			if err := os.Chmod(key, tc.keyMod); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tc.dirMode); err != nil {
				t.Fatal(err)
			}
			o := proxy.Options{PKIDir: dir}
			if tc.given {
				o = proxy.Options{CACert: cert, CAKey: key}
			}
			_, err := proxy.New(o)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			fe, ok := err.(*field.Error)
			if !ok || fe.Field != tc.field || !strings.Contains(err.Error(), tc.fix) || strings.Count(err.Error(), "\n") != 0 {
				t.Fatalf("error %v; want one line naming %s with %q", err, tc.field, tc.fix)
			}
			named := key
			if tc.fix == "chmod 700 " {
				named = dir
			}
			if !strings.HasSuffix(err.Error(), tc.fix+named) {
				t.Errorf("error %q does not end with the fix for %s", err, named)
			}
		})
	}
}

// TestMintedNeverOutlivesCA: a given CA that ends in 12 hours gets
// certificates that end with it, the mint cache still serves them
// (renewed only in the second half of their shorter life, not at every
// handshake), and the proxy warns at start that the CA ends soon.
func TestMintedNeverOutlivesCA(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	now := time.Now()
	ca, err := pki.NewCA(pki.WithValidity(now.Add(-time.Hour), now.Add(12*time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeCAPair(t, ca, dir)
	p := startProxy(t, org, proxy.Options{CACert: filepath.Join(dir, proxy.CACertFile), CAKey: filepath.Join(dir, proxy.CAKeyFile), MintCache: true})
	p.pool = ca.Pool()
	for i := 0; i < 2; i++ {
		tc := p.tunnel(t, org, nil)
		leaf := tc.ConnectionState().PeerCertificates[0]
		tc.Close()
		if !leaf.NotAfter.Equal(ca.Cert.NotAfter) {
			t.Errorf("minted certificate ends %s, its CA %s", leaf.NotAfter, ca.Cert.NotAfter)
		}
	}
	if c := p.Counters(); c.Mints != 1 || c.MintHits != 1 {
		t.Errorf("%d certificates minted, %d cache hits; want 1 and 1: a certificate cut short by its CA is still kept", c.Mints, c.MintHits)
	}
	if log := p.log.String(); strings.Count(log, "--ca-cert ends soon") != 1 {
		t.Errorf("log: want one warning that the CA ends soon:\n%s", log)
	}
}
