package pki_test

import (
	"crypto/tls"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/pki"
)

const testP12Password = "tlsbench-test"

func TestInit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts pki.InitOptions
	}{
		{name: "defaults"},
		{name: "intermediate p12 clients", opts: pki.InitOptions{
			ServerKeys: []pki.KeyType{pki.ECDSAP256, pki.Ed25519}, Clients: 2, ClientKey: pki.Ed25519,
			Intermediate: true, P12Password: testP12Password, P12Iterations: 100,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Dir = filepath.Join(t.TempDir(), "pki")
			l, err := pki.Init(opts)
			if err != nil {
				t.Fatal(err)
			}
			if m := fileMode(t, opts.Dir); m != 0o700 {
				t.Errorf("directory mode %v, want 0700", m)
			}
			wantServers := max(len(opts.ServerKeys), 1)
			if len(l.ServerCerts) != wantServers || len(l.ServerKeys) != wantServers || len(l.ClientCerts) != opts.Clients || len(l.ClientKeys) != opts.Clients {
				t.Fatalf("layout has %d/%d server and %d/%d client files", len(l.ServerCerts), len(l.ServerKeys), len(l.ClientCerts), len(l.ClientKeys))
			}
			if opts.P12Password != "" && (len(l.ServerP12) != wantServers || len(l.ClientP12) != opts.Clients) {
				t.Fatalf("layout has %d server and %d client .p12 files", len(l.ServerP12), len(l.ClientP12))
			}
			if (l.IntermediateCert != "") != opts.Intermediate {
				t.Fatalf("IntermediateCert = %q with Intermediate=%v", l.IntermediateCert, opts.Intermediate)
			}

			// Modes: every file holding a private key is 0600, certificates 0644.
			certFiles := append([]string{l.RootCert}, l.ClientCerts...)
			keyFiles := append(append([]string{}, l.ClientKeys...), l.ClientP12...)
			if l.IntermediateCert != "" {
				certFiles = append(certFiles, l.IntermediateCert)
			}
			for kt := range l.ServerCerts {
				certFiles = append(certFiles, l.ServerCerts[kt])
				keyFiles = append(keyFiles, l.ServerKeys[kt])
				if p := l.ServerP12[kt]; p != "" {
					keyFiles = append(keyFiles, p)
				}
			}
			for _, f := range certFiles {
				if m := fileMode(t, f); m != 0o644 {
					t.Errorf("%s: mode %v, want 0644", filepath.Base(f), m)
				}
			}
			for _, f := range keyFiles {
				if m := fileMode(t, f); m != 0o600 {
					t.Errorf("%s: mode %v, want 0600", filepath.Base(f), m)
				}
			}
			if n := len(mustReadDir(t, opts.Dir)); n != len(certFiles)+len(keyFiles) {
				t.Errorf("directory holds %d files, layout names %d", n, len(certFiles)+len(keyFiles))
			}

			// The files on disk make a working PKI: every server identity
			// completes a handshake against ca.pem, and every client
			// identity passes the server's verification.
			roots, err := pki.LoadCertsPEM(l.RootCert)
			if err != nil {
				t.Fatal(err)
			}
			pool := certPool(roots)
			for kt, certPath := range l.ServerCerts {
				srv, err := pki.LoadIdentityPEM(certPath, l.ServerKeys[kt])
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := pki.KeyTypeOf(srv.Leaf.PublicKey); got != kt {
					t.Fatalf("%s holds a %s key", certPath, got)
				}
				if wantChain := map[bool]int{false: 1, true: 2}[opts.Intermediate]; len(srv.Chain) != wantChain {
					t.Fatalf("%s holds %d certificates, want %d", certPath, len(srv.Chain), wantChain)
				}
				if p := l.ServerP12[kt]; p != "" {
					fromP12, err := pki.LoadPKCS12(p, opts.P12Password)
					if err != nil {
						t.Fatal(err)
					}
					assertSameIdentity(t, fromP12, srv)
				}
				scfg := serverConfig(srv)
				scfg.ClientAuth, scfg.ClientCAs = tls.RequireAndVerifyClientCert, pool
				for i := range max(opts.Clients, 1) {
					ccfg := &tls.Config{RootCAs: pool, ServerName: "localhost"}
					if opts.Clients > 0 {
						cli, err := pki.LoadIdentityPEM(l.ClientCerts[i], l.ClientKeys[i])
						if err != nil {
							t.Fatal(err)
						}
						ccfg.Certificates = []tls.Certificate{cli.TLSCertificate()}
					} else {
						scfg.ClientAuth = tls.NoClientCert
					}
					res := handshake(t, scfg, ccfg)
					if res.clientErr != nil || res.serverErr != nil {
						t.Fatalf("%s handshake: client %v, server %v", kt, res.clientErr, res.serverErr)
					}
				}
			}
		})
	}
}

func mustReadDir(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	e, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestInitExisting: a second Init into the same directory is refused, and
// with Force replaces exactly the old PKI's files.
func TestInitExisting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() // exists already, mode as the test framework made it
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o644)
	first, err := pki.Init(pki.InitOptions{Dir: dir, Clients: 3})
	if err != nil {
		t.Fatalf("Init into a directory with unrelated files: %v", err)
	}
	_, err = pki.Init(pki.InitOptions{Dir: dir})
	var exists *pki.ExistsError
	if !errors.As(err, &exists) || !strings.Contains(err.Error(), "already holds a PKI") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("second Init error = %v, want an ExistsError naming the directory", err)
	}
	oldRoot := mustRead(t, first.RootCert)
	second, err := pki.Init(pki.InitOptions{Dir: dir, Clients: 1, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if string(mustRead(t, second.RootCert)) == string(oldRoot) {
		t.Fatal("Force did not replace ca.pem")
	}
	for _, stale := range first.ClientCerts[1:] {
		if _, err := os.Stat(stale); !os.IsNotExist(err) {
			t.Errorf("stale %s of the old PKI survived Force", filepath.Base(stale))
		}
	}
	if _, err := os.Stat(notes); err != nil {
		t.Errorf("Force removed an unrelated file: %v", err)
	}
	// The new PKI, written aside until whole, is where Layout says, and
	// nothing of the swap is left.
	if second.Dir != dir || filepath.Dir(second.RootCert) != dir || filepath.Dir(second.ClientKeys[0]) != dir || filepath.Dir(second.ServerKeys[pki.ECDSAP256]) != dir {
		t.Errorf("Layout after Force: %+v, want its files in %s", second, dir)
	}
	for _, p := range []string{second.ClientCerts[0], second.ClientKeys[0], second.ServerCerts[pki.ECDSAP256]} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			t.Errorf("Force left the directory %s", e.Name())
		}
	}
}

func TestInitOptionErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts pki.InitOptions
		want string
	}{
		{"no dir", pki.InitOptions{}, "no directory"},
		{"unknown key", pki.InitOptions{ServerKeys: []pki.KeyType{"rsa-1024"}}, `"rsa-1024" is not supported (valid: ecdsa-p256`},
		{"duplicate key", pki.InitOptions{ServerKeys: []pki.KeyType{pki.Ed25519, pki.Ed25519}}, "listed twice"},
		{"bad client key", pki.InitOptions{ClientKey: "dsa"}, `client key type "dsa"`},
		{"negative clients", pki.InitOptions{Clients: -1}, "negative"},
		{"bad host", pki.InitOptions{Hosts: []string{"a b"}}, `host "a b"`},
		{"negative iterations", pki.InitOptions{P12Password: "x", P12Iterations: -5}, "iteration count -5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.opts.Dir == "" && tt.name != "no dir" {
				tt.opts.Dir = filepath.Join(t.TempDir(), "pki")
			}
			_, err := pki.Init(tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
			if tt.opts.Dir != "" {
				if _, err := os.Stat(tt.opts.Dir); !os.IsNotExist(err) {
					t.Fatal("Init created the directory before validating its options")
				}
			}
		})
	}
}

// TestInitOpenSSL checks Init's output with the tool operators will use on
// it: `openssl verify` accepts the chains for their purpose, and `openssl
// pkcs12 -info` opens the .p12 files and reports the modern algorithms.
func TestInitOpenSSL(t *testing.T) {
	t.Parallel()
	openssl := peers.Require(t, "openssl")
	const iterations = 1000
	for _, intermediate := range []bool{false, true} {
		t.Run(map[bool]string{false: "root only", true: "intermediate"}[intermediate], func(t *testing.T) {
			l, err := pki.Init(pki.InitOptions{
				Dir:          filepath.Join(t.TempDir(), "pki"),
				ServerKeys:   []pki.KeyType{pki.ECDSAP384, pki.Ed25519},
				Clients:      1,
				Intermediate: intermediate,
				P12Password:  testP12Password, P12Iterations: iterations,
			})
			if err != nil {
				t.Fatal(err)
			}
			run := func(args ...string) (string, error) {
				out, err := exec.Command(openssl, args...).CombinedOutput()
				return string(out), err
			}
			verifyArgs := []string{"verify", "-CAfile", l.RootCert}
			if intermediate {
				verifyArgs = append(verifyArgs, "-untrusted", l.IntermediateCert)
			}
			check := func(purpose, certPath string) {
				out, err := run(append(verifyArgs, "-purpose", purpose, certPath)...)
				if err != nil || strings.TrimSpace(out) != certPath+": OK" {
					t.Errorf("openssl verify -purpose %s %s: %v\n%s", purpose, filepath.Base(certPath), err, out)
				}
			}
			for _, c := range l.ServerCerts {
				check("sslserver", c)
			}
			for _, c := range l.ClientCerts {
				check("sslclient", c)
			}
			if intermediate {
				// Without the intermediate openssl cannot build the chain:
				// the intermediate is really needed, not decoration.
				if out, err := run("verify", "-CAfile", l.RootCert, l.ServerCerts[pki.Ed25519]); err == nil {
					t.Errorf("openssl verify without -untrusted succeeded:\n%s", out)
				}
			}

			p12s := append([]string{}, l.ClientP12...)
			for _, p := range l.ServerP12 {
				p12s = append(p12s, p)
			}
			iter := strconv.Itoa(iterations)
			want := []*regexp.Regexp{
				regexp.MustCompile(`MAC: sha256, Iteration ` + iter),
				regexp.MustCompile(`PKCS7 Encrypted data: PBES2, PBKDF2, AES-256-CBC, Iteration ` + iter + `, PRF hmacWithSHA256`),
				regexp.MustCompile(`Shrouded Keybag: PBES2, PBKDF2, AES-256-CBC, Iteration ` + iter + `, PRF hmacWithSHA256`),
			}
			for _, p := range p12s {
				out, err := run("pkcs12", "-info", "-noout", "-in", p, "-passin", "pass:"+testP12Password)
				if err != nil {
					t.Errorf("openssl pkcs12 -info %s: %v\n%s", filepath.Base(p), err, out)
					continue
				}
				for _, re := range want {
					if !re.MatchString(out) {
						t.Errorf("openssl pkcs12 -info %s: output lacks %q:\n%s", filepath.Base(p), re, out)
					}
				}
				if out, err := run("pkcs12", "-info", "-noout", "-in", p, "-passin", "pass:wrong"); err == nil {
					t.Errorf("openssl accepted a wrong password for %s:\n%s", filepath.Base(p), out)
				}
			}

			// ThumbprintHex is what openssl calls the SHA-256 fingerprint.
			out, err := run("x509", "-noout", "-fingerprint", "-sha256", "-in", l.ServerCerts[pki.Ed25519])
			if err != nil {
				t.Fatalf("openssl x509 -fingerprint: %v\n%s", err, out)
			}
			srv, err := pki.LoadCertsPEM(l.ServerCerts[pki.Ed25519])
			if err != nil {
				t.Fatal(err)
			}
			_, fp, _ := strings.Cut(strings.TrimSpace(out), "=")
			if got := strings.ToLower(strings.ReplaceAll(fp, ":", "")); got != pki.ThumbprintHex(srv[0]) {
				t.Errorf("openssl fingerprint %s, ThumbprintHex %s", got, pki.ThumbprintHex(srv[0]))
			}
		})
	}
}
