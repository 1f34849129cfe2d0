package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/keys"
)

// TestPKIInitOpenSSL: what `tlsbench pki init` writes is accepted by
// OpenSSL (`openssl verify` for every chain and purpose, `openssl pkcs12
// -info` for every PKCS#12 file, in the modern format) and by tlsbench's
// own key manager under the default constraints. The pki package tests the
// library at length; this checks the command's output end to end.
func TestPKIInitOpenSSL(t *testing.T) {
	t.Parallel()
	openssl := peers.Require(t, "openssl")
	dir := filepath.Join(t.TempDir(), "pki")
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err := cli.Run(context.Background(), []string{"pki", "init", "--dir", dir, "--server-keys", "ecdsa-p256,rsa-2048,ed25519",
		"--clients", "1", "--intermediate", "--p12-password-file", pw}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("pki init: %v\n%s", err, stderr.String())
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(openssl, args...).CombinedOutput()
		if err != nil {
			t.Errorf("openssl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	ca, inter := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "intermediate.pem")
	var sources []keys.Source
	for _, kt := range []string{"ecdsa-p256", "rsa-2048", "ed25519"} {
		base := filepath.Join(dir, "server-"+kt)
		if out := run("verify", "-CAfile", ca, "-untrusted", inter, "-purpose", "sslserver", base+".pem"); !strings.Contains(out, ": OK") {
			t.Errorf("openssl verify %s: %s", kt, out)
		}
		out := run("pkcs12", "-info", "-noout", "-in", base+".p12", "-passin", "file:"+pw)
		for _, want := range []string{"PBES2, PBKDF2, AES-256-CBC, Iteration 2048", "MAC: sha256"} {
			if !strings.Contains(out, want) {
				t.Errorf("openssl pkcs12 -info %s lacks %q:\n%s", kt, want, out)
			}
		}
		sources = append(sources, keys.Source{CertFile: base + ".pem", KeyFile: base + "-key.pem"}, keys.Source{P12File: base + ".p12"})
	}
	if out := run("verify", "-CAfile", ca, "-untrusted", inter, "-purpose", "sslclient", filepath.Join(dir, "client-1.pem")); !strings.Contains(out, ": OK") {
		t.Errorf("openssl verify client-1: %s", out)
	}
	m, err := keys.New(sources, keys.WithP12Password(keys.PasswordFile(pw)))
	if err != nil {
		t.Fatalf("the key manager refuses the PKI: %v", err)
	}
	if n := len(m.Identities()); n != 6 {
		t.Errorf("key manager loaded %d identities, want 6", n)
	}
}

// TestPKIExitCodes: bad input to pki init is exit 2 with one line naming
// the flag; nothing is written.
func TestPKIExitCodes(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "pki")
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"pki"}, 2, "no pki command given"},
		{[]string{"pki", "init"}, 2, "--dir: missing"},
		{[]string{"pki", "init", "--dir", dir, "--server-keys", "rsa-1024"}, 2, "--server-keys:"},
		{[]string{"pki", "init", "--dir", dir, "--hosts", "a b"}, 2, "--hosts:"},
		{[]string{"pki", "init", "--dir", dir, "--clients", "-3"}, 2, "--clients -3:"},
		{[]string{"pki", "init", "--dir", dir, "--p12-password-file", filepath.Join(dir, "none")}, 2, "--p12-password-file:"},
		{[]string{"pki", "init", "--dir", dir, "--p12-password-file", pw, "--p12-iterations", "100000000000"}, 2, "--p12-iterations 100000000000: must be between 1 and 10000000"},
		{[]string{"pki", "init", "--help"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			err := cli.Run(context.Background(), tt.args, &bytes.Buffer{}, &bytes.Buffer{})
			if got := cli.ExitCode(err); got != tt.code {
				t.Errorf("exit %d, want %d (err %v)", got, tt.code, err)
			}
			if msg := cli.Message(err); !strings.Contains(msg, tt.msg) || strings.Contains(msg, "\n") {
				t.Errorf("message %q, want one line containing %q", msg, tt.msg)
			}
		})
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("a failed pki init created the directory")
	}
}

// TestPKIInitInterrupted: pki init stopped by Ctrl-C (SIGINT) or SIGTERM
// in the middle of a long PKCS#12 key derivation (10 million iterations,
// the most allowed: seconds per file) exits within a second
// (interruptExit), as interrupted, and leaves no file of the PKI it was
// writing; with --force over an earlier PKI, it leaves that one whole, as
// it was.
func TestPKIInitInterrupted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sig   os.Signal
		force bool
	}{{os.Interrupt, false}, {syscall.SIGTERM, false}, {os.Interrupt, true}} {
		t.Run(fmt.Sprintf("%v/force=%v", tc.sig, tc.force), func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			pw := filepath.Join(tmp, "pw")
			if err := os.WriteFile(pw, []byte("s3cret\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(tmp, "pki")
			args := []string{"pki", "init", "--dir", dir, "--clients", "2", "--p12-password-file", pw}
			var old map[string]string
			if tc.force {
				checkExit(t, append(args, "--p12-iterations", "1"), 0, "")
				old = dirFiles(t, dir)
				args = append(args, "--force")
			}
			cmd, _, stderr := selfProcess(t, nil, append(args, "--p12-iterations", "10000000")...)
			waitServerKey(t, dir, old, stderr)
			time.Sleep(100 * time.Millisecond)
			sent := time.Now()
			cmd.Process.Signal(tc.sig)
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-exited:
			case <-time.After(interruptExit()):
				t.Fatalf("pki init still running %v after %v", interruptExit(), tc.sig)
			}
			if code := cmd.ProcessState.ExitCode(); code != cli.ExitInterrupted {
				t.Errorf("exit %d after %v, want %d; stderr: %s", code, time.Since(sent), cli.ExitInterrupted, stderr)
			}
			left := dirFiles(t, dir)
			for name := range left {
				if _, ok := old[name]; !ok {
					t.Errorf("an interrupted pki init left %s", name)
				}
			}
			for name, data := range old {
				if got, ok := left[name]; !ok || got != data {
					t.Errorf("the earlier PKI's %s: removed or changed (there: %v)", name, ok)
				}
			}
		})
	}
}

// waitServerKey waits for pki init to write the new server key: its
// PKCS#12 file's key derivation starts just after. With an earlier PKI
// in dir (old), the new key is one not in old, in dir or a directory in
// it.
func waitServerKey(t *testing.T, dir string, old map[string]string, stderr fmt.Stringer) {
	t.Helper()
	const name = "server-ecdsa-p256-key.pem"
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		keys, _ := filepath.Glob(filepath.Join(dir, name))
		inner, _ := filepath.Glob(filepath.Join(dir, "*", name))
		for _, k := range append(keys, inner...) {
			b, err := os.ReadFile(k)
			if err == nil && len(b) > 0 && string(b) != old[name] {
				return
			}
		}
		if time.Now().After(end) {
			t.Fatalf("pki init wrote no server key; stderr: %s", stderr)
		}
	}
}

// dirFiles is what dir holds, by name, directories included (as "/").
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		if e.IsDir() {
			files[e.Name()] = "/"
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}
