package peers

import (
	"bufio"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"github.com/tlsbench/tlsbench/pki"
)

// jsseSource is the Java server, compiled on first use (javac) into a
// directory shared by the test processes of one machine.
//
//go:embed jsse/JSSEServer.java
var jsseSource []byte

// JSSEConfig is what a JSSE server (Java's own TLS stack) serves.
type JSSEConfig struct {
	// Cert and Key are the server's chain (leaf first) and key, PEM;
	// they are written as a PKCS#12 key store for Java (2,048 PBKDF2
	// iterations, as OpenSSL writes it).
	Cert, Key string
	// KeyStore, instead of Cert and Key, is a PKCS#12 file served as it
	// is, opened with KeyStorePassword: one written by the JDK's keytool
	// or with another iteration count, whose key the PKIX key manager
	// decrypts on every full handshake.
	KeyStore, KeyStorePassword string
	// Mode is "echo" (every byte read is written back: tlsbench's ping
	// and line requests) or "http" (HEAD and GET answered with a small
	// page, keep-alive). Default "echo".
	Mode string
	// KeyManager is the JDK key manager: "SunX509" (the default: the key
	// is decrypted once) or "PKIX" (the key is read from the key store,
	// decrypting it, on every full handshake: what that costs grows with
	// the key store's iteration count, as BENCHMARKS.md measures).
	KeyManager string
	// Protocols restricts the versions ("TLSv1.2", "TLSv1.3"); empty:
	// the JDK's defaults.
	Protocols []string
	// NoTickets turns session tickets off: TLS 1.2 then resumes by
	// session ID only, from the server's session cache.
	NoTickets bool
	// NoDelay sets TCP_NODELAY on accepted sockets. Java leaves Nagle's
	// algorithm on unless told, as most Java services do, so the default
	// is false.
	NoDelay bool
	// ClientCA, a PEM file, requires client certificates verified by it.
	ClientCA string
}

// JSSEServer is a running JSSE server.
type JSSEServer struct {
	// Addr is the 127.0.0.1:port it accepts on.
	Addr string
	p    *process
	dir  string // its key stores, removed on Stop
}

// jssePassword protects the key stores the helper writes for Java, which
// needs one; they live in a 0700 temporary directory of the test.
const jssePassword = "tlsbench-jsse"

// StartJSSE compiles the Java server when needed, starts it on a free
// port of 127.0.0.1 and waits until it accepts. ctx ending stops it.
func StartJSSE(ctx context.Context, c JSSEConfig) (*JSSEServer, error) {
	classes, err := compileJSSE()
	if err != nil {
		return nil, err
	}
	java, err := lookPath("java")
	if err != nil {
		return nil, err
	}
	args, dir, err := c.args(classes)
	if err != nil {
		return nil, err
	}
	s := &JSSEServer{dir: dir}
	cmd := exec.Command(java, args...)
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	if s.p, err = startProcess(cmd); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting java: %w", err)
	}
	go func() { <-s.p.done; pw.Close() }()
	addr, err := acceptLine(ctx, s.p, pr, "JSSE server")
	if err != nil {
		s.Stop()
		return nil, err
	}
	s.Addr = addr
	context.AfterFunc(ctx, func() { s.Stop() })
	return s, nil
}

// args writes the key stores of c to a new directory and returns the
// java command's arguments.
func (c JSSEConfig) args(classes string) ([]string, string, error) {
	mode, km, protocols := c.Mode, c.KeyManager, "default"
	if mode == "" {
		mode = "echo"
	}
	if mode != "echo" && mode != "http" {
		return nil, "", fmt.Errorf("JSSE server mode %q: want echo or http", mode)
	}
	if km == "" {
		km = "SunX509"
	}
	if len(c.Protocols) > 0 {
		protocols = strings.Join(c.Protocols, ",")
	}
	dir, err := os.MkdirTemp("", "tlsbench-jsse-")
	if err != nil {
		return nil, "", err
	}
	ks, password, err := c.keyStore(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", err
	}
	args := []string{
		"-Djdk.tls.server.enableSessionTicketExtension=" + strconv.FormatBool(!c.NoTickets),
		"-XX:+UseSerialGC", "-Xshare:auto", "-cp", classes, "JSSEServer",
		ks, password, mode, km, protocols, strconv.FormatBool(c.NoDelay),
	}
	if c.ClientCA != "" {
		ts := filepath.Join(dir, "client-ca.p12")
		// Java opens it with the key store's password.
		if err := writeTrustStore(ts, c.ClientCA, password); err != nil {
			os.RemoveAll(dir)
			return nil, "", err
		}
		args = append(args, ts)
	}
	return args, dir, nil
}

// keyStore is the key store Java opens, and its password: c.KeyStore,
// or one written to dir from c.Cert and c.Key.
func (c JSSEConfig) keyStore(dir string) (string, string, error) {
	if c.KeyStore == "" {
		ks := filepath.Join(dir, "server.p12")
		return ks, jssePassword, writeKeyStore(ks, c.Cert, c.Key)
	}
	if c.Cert != "" || c.Key != "" {
		return "", "", errors.New("JSSE server: give a key store or a certificate and key, not both")
	}
	if c.KeyStorePassword == "" {
		// Java opens a PKCS#12 file without a password, but then
		// cannot decrypt its key.
		return "", "", errors.New("JSSE server: a key store needs its password")
	}
	if _, err := os.Stat(c.KeyStore); err != nil {
		return "", "", fmt.Errorf("JSSE server: key store: %w", err)
	}
	return c.KeyStore, c.KeyStorePassword, nil
}

func writeKeyStore(path, cert, key string) error {
	id, err := pki.LoadIdentityPEM(cert, key)
	if err != nil {
		return err
	}
	data, err := pki.EncodePKCS12(id, jssePassword, 0)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

func writeTrustStore(path, caFile, password string) error {
	certs, err := pki.LoadCertsPEM(caFile)
	if err != nil {
		return err
	}
	data, err := pkcs12.Modern2023.EncodeTrustStore(certs, password)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// PID is the JVM's process id.
func (s *JSSEServer) PID() int { return s.p.pid() }

// Output is the last of what the JVM printed.
func (s *JSSEServer) Output() string { return s.p.output.String() }

// Stop ends the JVM and removes its key stores.
func (s *JSSEServer) Stop() error {
	err := s.p.stop(3 * time.Second)
	os.RemoveAll(s.dir)
	return err
}

var jsseCompiled struct {
	once sync.Once
	dir  string
	err  error
}

// compileJSSE compiles the server once per process into a directory named
// by the source's digest, shared by test processes: a compilation takes
// seconds, and test binaries of several packages start the server.
func compileJSSE() (string, error) {
	jsseCompiled.once.Do(func() {
		javac, err := lookPath("javac")
		if err != nil {
			jsseCompiled.err = err
			return
		}
		sum := sha256.Sum256(jsseSource)
		dir := filepath.Join(os.TempDir(), "tlsbench-jsse-classes-"+hex.EncodeToString(sum[:8]))
		if _, err := os.Stat(filepath.Join(dir, "JSSEServer.class")); err == nil {
			jsseCompiled.dir = dir
			return
		}
		jsseCompiled.dir, jsseCompiled.err = compileInto(javac, dir)
	})
	return jsseCompiled.dir, jsseCompiled.err
}

// compileInto compiles the source in a scratch directory and renames it
// to dir, so that a concurrent test process never sees half a build.
func compileInto(javac, dir string) (string, error) {
	tmp, err := os.MkdirTemp(os.TempDir(), "tlsbench-jsse-build-")
	if err != nil {
		return "", err
	}
	src := filepath.Join(tmp, "JSSEServer.java")
	if err := os.WriteFile(src, jsseSource, 0o644); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	out, err := exec.Command(javac, "-d", tmp, src).CombinedOutput()
	if err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("javac JSSEServer.java: %v: %s", err, strings.TrimSpace(string(out)))
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if _, serr := os.Stat(filepath.Join(dir, "JSSEServer.class")); serr == nil {
			return dir, nil // another process was first
		}
		return "", err
	}
	return dir, nil
}

// acceptLine reads the peer's stdout for its "ACCEPT host:port" line and
// returns the address, then keeps draining the output into the process's
// tail so that the peer never blocks on a full pipe.
func acceptLine(ctx context.Context, p *process, r io.Reader, what string) (string, error) {
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			p.output.Write([]byte(line + "\n"))
			if !sent && strings.HasPrefix(line, "ACCEPT") {
				addrc <- strings.TrimSpace(strings.TrimPrefix(line, "ACCEPT"))
				sent = true
			}
		}
		io.Copy(io.Discard, r)
	}()
	select {
	case addr := <-addrc:
		if addr == "" || strings.HasSuffix(addr, ":0") {
			return "", p.failure(what, errNoAddr)
		}
		return addr, nil
	case <-p.done:
		return "", p.failure(what, fmt.Errorf("exited: %v", p.err))
	case <-time.After(StartTimeout):
		return "", p.failure(what, errors.New("not ready after "+StartTimeout.String()))
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// JavaVersion is the first line of `java -version`, e.g. `openjdk
// version "17.0.15" 2025-04-15`.
func JavaVersion() (string, error) {
	java, err := lookPath("java")
	if err != nil {
		return "", err
	}
	out, err := exec.Command(java, "-version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("java -version: %v", err)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line, nil
}
