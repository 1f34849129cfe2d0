package peers

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tlsbench/tlsbench/pki"
)

// debianPackages names the Debian package that provides each tool, for
// the failure message in CI.
var debianPackages = map[string]string{
	"openssl": "openssl",
	"nginx":   "nginx-light",
	"squid":   "squid-openssl",
	// ngtcp2's example HTTP/3 client and server over GnuTLS.
	"gtlsclient":  "ngtcp2-client",
	"gtlsserver":  "ngtcp2-server",
	"gnutls-serv": "gnutls-bin",
	// The JSSE server is compiled in the test and run by the JDK.
	"javac": "default-jdk-headless",
	"java":  "default-jdk-headless",
	// Callgrind, and its gdb server's client that reads another
	// process's count.
	"valgrind": "valgrind",
	"vgdb":     "valgrind",
}

// Require returns the path of tool (openssl, nginx, squid...). Under
// go test -short the test is skipped whether or not the tool is there:
// the inner loop runs without real peers, which start processes and take
// most of the suite's time. Otherwise, when the tool is missing, the test
// is skipped, or fails when the CI environment variable is set: CI must
// install it.
func Require(t testing.TB, tool string) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("needs %s, a real peer: skipped under -short (go test without -short runs it)", tool)
	}
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
	return OpenSSLEnv(t, nil, args...)
}

// OpenSSLEnv is OpenSSL with env added to the server's environment (see
// StartOpenSSLEnv).
func OpenSSLEnv(t testing.TB, env []string, args ...string) *OpenSSLServer {
	t.Helper()
	Require(t, "openssl")
	s, err := StartOpenSSLEnv(context.Background(), env, args...)
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

// NGTCP2T starts gtlsserver for the test (see StartNGTCP2) and stops it
// when the test ends; its last output is attached to a failed test's.
func NGTCP2T(t testing.TB, c NGTCP2Config) *NGTCP2Server {
	t.Helper()
	Require(t, "gtlsserver")
	s, err := StartNGTCP2(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("gtlsserver output:\n%s", s.Output())
		}
		if err := s.Stop(); err != nil {
			t.Errorf("stopping gtlsserver: %v", err)
		}
	})
	return s
}

// GnuTLS starts gnutls-serv for the test (see StartGnuTLS) and stops it
// when the test ends; its last output is attached to a failed test's.
func GnuTLS(t testing.TB, c GnuTLSConfig) *GnuTLSServer {
	t.Helper()
	Require(t, "gnutls-serv")
	s, err := StartGnuTLS(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("gnutls-serv output:\n%s", s.Output())
		}
		if err := s.Stop(); err != nil {
			t.Errorf("stopping gnutls-serv: %v", err)
		}
	})
	return s
}

// JSSE starts the Java server for the test (see StartJSSE) and stops it
// when the test ends; its last output is attached to a failed test's.
func JSSE(t testing.TB, c JSSEConfig) *JSSEServer {
	t.Helper()
	Require(t, "javac")
	Require(t, "java")
	s, err := StartJSSE(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("JSSE server output:\n%s", s.Output())
		}
		if err := s.Stop(); err != nil {
			t.Errorf("stopping the JSSE server: %v", err)
		}
	})
	return s
}

// JSSEKeyStore writes the identity of cert and key (PEM) as a PKCS#12
// key store of the test, encrypted with password at iterations PBKDF2
// iterations (the JDK's keytool writes 10,000, OpenSSL 2,048), for
// JSSEConfig.KeyStore.
func JSSEKeyStore(t testing.TB, cert, key, password string, iterations int) string {
	t.Helper()
	id, err := pki.LoadIdentityPEM(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	data, err := pki.EncodePKCS12(id, password, iterations)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "server.p12")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Versions returns the versions of the peers that are installed, keyed
// "openssl", "nginx", "squid", "gnutls" and "java", for results.Env.Peers.
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
	if v, err := GnuTLSVersion(); err == nil {
		out["gnutls"] = v
	}
	if v, err := JavaVersion(); err == nil {
		out["java"] = v
	}
	return out
}
