package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/proxy"
)

// TestOpenKeysRefused: the proxy's CA key and serve's --pki-dir keys that
// group or others can read, and their directories when others can write
// them, stop the start with one line naming the file and the fix, exit 2,
// as OpenSSH refuses an open key.
func TestOpenKeysRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		command string
		mode    os.FileMode
		onDir   bool
	}{
		{"proxy key", "proxy", 0o644, false},
		{"proxy directory", "proxy", 0o777, true},
		{"serve key", "serve", 0o640, false},
		{"serve directory", "serve", 0o775, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "pki")
			key := privatePKI(t, tc.command, dir)
			target, fix := key, "chmod 600 "+key
			if tc.onDir {
				target, fix = dir, "chmod 700 "+dir
			}
			if err := os.Chmod(target, tc.mode); err != nil {
				t.Fatal(err)
			}
			code, msg := runMessageWithin(t, 15*time.Second, tc.command, "--pki-dir", dir, "--listen", "127.0.0.1:0")
			if code != 2 || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "tlsbench: --pki-dir: ") || !strings.HasSuffix(msg, fix) {
				t.Fatalf("exit %d, message %q: want exit 2 and one line ending %q", code, msg, fix)
			}
		})
	}
}

// privatePKI writes what command finds in its --pki-dir, private, and
// returns the key it reads.
func privatePKI(t *testing.T, command, dir string) string {
	t.Helper()
	if command == "proxy" {
		if _, err := proxy.New(proxy.Options{PKIDir: dir}); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, proxy.CAKeyFile)
	}
	l, err := pki.Init(pki.InitOptions{Dir: dir, ServerKeys: []pki.KeyType{pki.ECDSAP256}})
	if err != nil {
		t.Fatal(err)
	}
	return l.ServerKeys[pki.ECDSAP256]
}
