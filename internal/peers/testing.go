package peers

import (
	"context"
	"os"
	"testing"
)

// debianPackages names the Debian package that provides each tool, for
// the failure message in CI.
var debianPackages = map[string]string{
	"openssl": "openssl",
	"nginx":   "nginx-light",
	"squid":   "squid-openssl",
	// ngtcp2's example HTTP/3 client and server over GnuTLS.
	"gtlsclient": "ngtcp2-client",
	"gtlsserver": "ngtcp2-server",
}

// Require returns the path of tool (openssl, nginx, squid...). When it is missing
// the test is skipped, or fails when the CI environment variable is set:
// CI must install it.
func Require(t testing.TB, tool string) string {
	t.Helper()
	path, err := lookPath(tool)
	if err == nil {
		return path
	}
	pkg := debianPackages[tool]
	if pkg == "" {
		pkg = tool
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed and CI is set: scripts/test.sh installs it when run as root (add %s to scripts/packages.txt if it is not there)", tool, pkg)
	}
	t.Skipf("%s is not installed (apt-get install -y %s); set CI=1 to make this a failure", tool, pkg)
	return ""
}

// OpenSSL starts `openssl s_server ARGS` for the test (see StartOpenSSL)
// and stops it when the test ends.
func OpenSSL(t testing.TB, args ...string) *OpenSSLServer {
	t.Helper()
	Require(t, "openssl")
	s, err := StartOpenSSL(context.Background(), args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stopping openssl s_server: %v", err)
		}
	})
	return s
}

// NginxT starts nginx for the test (see StartNginx) and stops it when
// the test ends; its error log is attached to the output of a failed
// test.
func NginxT(t testing.TB, c NginxConfig) *Nginx {
	t.Helper()
	Require(t, "nginx")
	n, err := StartNginx(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("nginx.conf:\n%s\nerror.log:\n%s", n.Config, n.ErrorLog())
		}
		if err := n.Stop(); err != nil {
			t.Errorf("stopping nginx: %v", err)
		}
	})
	return n
}

// Versions returns the versions of the peers that are installed, keyed
// "openssl", "nginx" and "squid", for results.Env.Peers.
func Versions() map[string]string {
	out := map[string]string{}
	if v, err := OpenSSLVersion(); err == nil {
		out["openssl"] = v
	}
	if v, err := NginxVersion(); err == nil {
		out["nginx"] = v
	}
	if v, err := SquidVersion(); err == nil {
		out["squid"] = v
	}
	return out
}
