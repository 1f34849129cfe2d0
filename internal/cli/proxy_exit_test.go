package cli_test

import (
	"net"
	"path/filepath"
	"testing"

	"github.com/tlsbench/tlsbench/internal/testpki"
)

// TestProxyExitCodes: a bad --proxy URL or an unreadable --proxy-ca is
// the user's to fix (exit 2, naming the flag); a proxy that is not there
// fails the run (exit 1), in one line either way.
func TestProxyExitCodes(t *testing.T) {
	t.Parallel()
	_, _, f := testpki.ServerFiles(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	missing := filepath.Join(t.TempDir(), "nope.pem")
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"run", "--proxy", "ftp://x"}, 2, `--proxy "ftp://x": only http:// proxies are supported`},
		{[]string{"run", "--mode", "throughput", "--proxy", "ftp://x"}, 2, `--proxy "ftp://x"`},
		{[]string{"run", "--proxy", "http://" + closed, "--proxy-ca", f.CA, "--tls", "1.3", "--resume", "off", "--concurrency", "1"}, 1,
			"proxy http://" + closed + ": unreachable: connection refused"},
		{[]string{"run", "--mode", "throughput", "--proxy", "http://" + closed, "--proxy-ca", f.CA, "--cipher", "aes128gcm", "--buffer", "16k"}, 1,
			"proxy http://" + closed + ": unreachable: connection refused"},
		{[]string{"run", "--proxy", "http://" + closed, "--proxy-ca", missing, "--tls", "1.3", "--resume", "off", "--concurrency", "1"}, 2,
			"--proxy-ca " + missing},
	} {
		checkExit(t, tt.args, tt.code, tt.msg)
	}
}
