package cli_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tlsbench/tlsbench/internal/testpki"
)

// TestProxyExitCodes: a bad --proxy URL or an unreadable --proxy-ca is
// the user's to fix (exit 2, naming the flag); a proxy that is not there
// fails the run (exit 1), in one line either way.
func TestProxyExitCodes(t *testing.T) {
	t.Parallel()
	_, _, f := testpki.ServerFiles(t)
	closed := refusedAddr(t)
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

// refusedAddr is a loopback address where connections are refused for as
// long as the test runs: its port is bound but never listened on, so no
// other test can take it in the meantime.
func refusedAddr(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
}

// TestProxyAllowDestHostNames: a host name of --allow-dest is checked as
// every flag checks host names (exit 2, naming the flag): no all-digit
// last label, which is a mistyped address, and no label longer than 63
// characters. --max-conns 0 makes a proxy that took the name stop at
// once instead of serving.
func TestProxyAllowDestHostNames(t *testing.T) {
	t.Parallel()
	pkiDir := t.TempDir()
	for _, tt := range []struct{ dest, msg string }{
		{"2130706433", `--allow-dest: "2130706433" is neither a DNS name nor an IP address: its last label`},
		{"127.0.0.256", `--allow-dest: "127.0.0.256" is neither a DNS name nor an IP address`},
		{strings.Repeat("a", 64) + ".example", "is longer than 63 characters"},
	} {
		checkExit(t, []string{"proxy", "--pki-dir", pkiDir, "--max-conns", "0", "--allow-dest", tt.dest}, 2, tt.msg)
	}
}
