package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/keys"
	"github.com/tlsbench/tlsbench/pki"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runServe runs `tlsbench serve` in-process on a free port and returns its
// address, the CA file it printed, and a function that stops it and
// returns its stderr.
func runServe(t *testing.T, args ...string) (addr, caFile string, stop func() string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	all := append([]string{"serve", "--listen", "127.0.0.1:0", "--pki-dir", t.TempDir()}, args...)
	go func() {
		done <- cli.Run(ctx, all, outW, stderr)
		outW.Close()
	}()
	sc := bufio.NewScanner(outR)
	for caFile == "" && sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
			addr, _, _ = strings.Cut(a, " ")
		}
		if ca, ok := strings.CutPrefix(sc.Text(), "CA certificate: "); ok {
			caFile = ca
		}
	}
	go io.Copy(io.Discard, outR)
	if addr == "" {
		cancel()
		t.Fatalf("serve %v did not start: %v; stderr: %s", args, <-done, stderr)
	}
	var once sync.Once
	stop = func() string {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
		})
		return stderr.String()
	}
	t.Cleanup(func() { stop() })
	return addr, caFile, stop
}

func caPool(t *testing.T, caFile string) *x509.CertPool {
	t.Helper()
	certs, err := pki.LoadCertsPEM(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool
}

// exchange handshakes with cfg, sends one byte and reads its echo: a TLS
// 1.3 client learns that its certificate was refused only when it reads.
// It returns the client's local address and the error.
func exchange(addr string, cfg *tls.Config) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	tc := tls.Client(conn, cfg)
	if err := tc.Handshake(); err != nil {
		return conn.LocalAddr().String(), err
	}
	if _, err := tc.Write([]byte{'p'}); err != nil {
		return conn.LocalAddr().String(), err
	}
	_, err = io.ReadFull(tc, make([]byte, 1))
	return conn.LocalAddr().String(), err
}

// logLines returns the lines of a log that have msg as their message.
func logLines(log, msg string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, `msg="`+msg+`"`) {
			out = append(out, l)
		}
	}
	return out
}

// TestServeLogsRejectedHandshakes: a client certificate from another CA,
// an expired one and a revoked one each give one warning line naming the
// client's address, the kind, the reason and the certificate; a good
// client gives none, and no line carries key material.
func TestServeLogsRejectedHandshakes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ca, other := testpki.CA(t), testpki.CA(t)
	clientCA := filepath.Join(dir, "clients.pem")
	if err := pki.WriteCertsPEM(clientCA, ca.Root()); err != nil {
		t.Fatal(err)
	}
	issue := func(from *pki.CA, cn string, opts ...pki.Option) *pki.Identity {
		id, err := from.IssueClient(cn, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	now := time.Now()
	good := issue(ca, "good client")
	foreign := issue(other, "foreign client")
	expired := issue(ca, "expired client", pki.WithValidity(now.Add(-48*time.Hour), now.Add(-24*time.Hour)))
	revoked := issue(ca, "revoked client")
	revokedFile := filepath.Join(dir, "revoked.txt")
	if err := os.WriteFile(revokedFile, []byte(pki.ThumbprintHex(revoked.Leaf)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, caFile, stop := runServe(t, "--mutual", "--client-ca", clientCA, "--revoked", revokedFile)
	roots := caPool(t, caFile)

	tests := []struct {
		id                  *pki.Identity
		kind, reason, ident string
		version             uint16
	}{
		{foreign, "verify", "unknown authority", "CN=foreign client", tls.VersionTLS13},
		{expired, "verify", "expired", "CN=expired client", tls.VersionTLS12},
		{revoked, "revoked", "is revoked", "CN=revoked client", tls.VersionTLS13},
	}
	local := make([]string, len(tests))
	for i, tt := range tests {
		cert := tt.id.TLSCertificate()
		cfg := &tls.Config{RootCAs: roots, ServerName: "localhost", Certificates: []tls.Certificate{cert}, MaxVersion: tt.version}
		var err error
		if local[i], err = exchange(addr, cfg); err == nil {
			t.Fatalf("%s: the server accepted the connection", tt.ident)
		}
	}
	cert := good.TLSCertificate()
	if _, err := exchange(addr, &tls.Config{RootCAs: roots, ServerName: "localhost", Certificates: []tls.Certificate{cert}}); err != nil {
		t.Fatalf("good client: %v", err)
	}
	log := stop()
	lines := logLines(log, "handshake rejected")
	if len(lines) != len(tests) {
		t.Fatalf("%d rejection lines, want %d; log:\n%s", len(lines), len(tests), log)
	}
	for i, tt := range tests {
		var l string
		for _, line := range lines {
			if strings.Contains(line, "remote="+local[i]+" ") {
				l = line
			}
		}
		for _, want := range []string{"level=WARN", "remote=" + local[i], "kind=" + tt.kind, tt.reason, tt.ident, "sha256:"} {
			if !strings.Contains(l, want) {
				t.Errorf("line %q: no %q", l, want)
			}
		}
	}
	if strings.Contains(log, "PRIVATE") || strings.Contains(log, "BEGIN") || strings.Contains(log, "CN=good client") {
		t.Errorf("log holds key material or the accepted client:\n%s", log)
	}
}

// TestServeRateLimitsRejectionLog: a flood of 200 refused handshakes
// gives at most 10 lines a second; the lines left out are counted, so the
// log still accounts for all 200.
func TestServeRateLimitsRejectionLog(t *testing.T) {
	t.Parallel()
	addr, caFile, stop := runServe(t, "--mutual")
	other := testpki.CA(t)
	id, err := other.IssueClient("flood")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{RootCAs: caPool(t, caFile), ServerName: "localhost", Certificates: []tls.Certificate{id.TLSCertificate()}, MaxVersion: tls.VersionTLS12}
	const flood = 200
	start := time.Now()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for range flood {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if _, err := exchange(addr, cfg); err == nil {
				t.Error("a foreign client certificate was accepted")
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	log := stop()
	logged := len(logLines(log, "handshake rejected"))
	suppressed := 0
	summaries := logLines(log, "log lines suppressed: too many in one second")
	for _, l := range summaries {
		m := regexp.MustCompile(`suppressed=(\d+)`).FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("summary line without a count: %q", l)
		}
		n, _ := strconv.Atoi(m[1])
		suppressed += n
	}
	if logged+suppressed != flood {
		t.Errorf("%d lines logged + %d counted as suppressed, want %d", logged, suppressed, flood)
	}
	if limit := 10 * (int(elapsed.Seconds()) + 2); logged > limit {
		t.Errorf("%d lines logged in %v, want at most 10 a second", logged, elapsed)
	}
	if elapsed < 10*time.Second && len(summaries) == 0 {
		t.Errorf("%d rejections in %v and no line counting the suppressed ones", flood, elapsed)
	}
	if !strings.Contains(log, strconv.Itoa(flood)+" failed") {
		t.Errorf("summary at exit does not count %d failures:\n%s", flood, log)
	}
}

// TestServeClosesIdleConnections: an echo connection that stays silent is
// closed after --idle-timeout, and so is one that sends half an HTTP
// request and stops.
func TestServeClosesIdleConnections(t *testing.T) {
	t.Parallel()
	addr, caFile, _ := runServe(t, "--idle-timeout", "300ms", "--log-level", "debug")
	cfg := &tls.Config{RootCAs: caPool(t, caFile), ServerName: "localhost"}
	for _, first := range []string{"p", "GET / HTTP/1.1\r\nHost: x\r\n"} {
		tc, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", addr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(tc, first)
		tc.SetReadDeadline(time.Now().Add(20 * time.Second))
		start := time.Now()
		got, err := io.ReadAll(tc)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Errorf("after %q: connection still open after %v", first, time.Since(start))
		}
		if first == "p" && string(got) != "p" {
			t.Errorf("echo %q, want %q", got, first)
		}
		tc.Close()
	}
}

// TestServeAnswersHTTP: an HTTP/1.x request gets a valid HTTP/1.1
// response (Go's HTTP client is strict about it), HEAD without a body.
func TestServeAnswersHTTP(t *testing.T) {
	t.Parallel()
	addr, caFile, _ := runServe(t)
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: caPool(t, caFile)}}}
	_, port, _ := net.SplitHostPort(addr)
	url := "https://localhost:" + port + "/"
	for _, method := range []string{"GET", "HEAD", "POST"} {
		req, _ := http.NewRequest(method, url, strings.NewReader(""))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || resp.ProtoMajor != 1 || resp.ProtoMinor != 1 {
			t.Errorf("%s: %s %s, %v", method, resp.Proto, resp.Status, err)
		}
		if method == "HEAD" && len(body) != 0 || method != "HEAD" && !strings.Contains(string(body), "TLS") {
			t.Errorf("%s: body %q", method, body)
		}
	}
}

// TestServeHostileInput: what a hostile client sends (a request line of
// 1 MiB without a newline, binary garbage before or after the handshake,
// a malformed request line) is answered or closed, promptly, and the
// server still serves the next client.
func TestServeHostileInput(t *testing.T) {
	t.Parallel()
	addr, caFile, stop := runServe(t, "--idle-timeout", "5s")
	cfg := &tls.Config{RootCAs: caPool(t, caFile), ServerName: "localhost"}
	garbage := make([]byte, 64<<10)
	rand.Read(garbage)
	garbage[0] = 0 // not the start of a request line nor of a throughput setup

	tests := []struct {
		name string
		send []byte
		want string // prefix of the answer; "" when any end of the connection will do
	}{
		{"1 MiB request line", append([]byte("GET /"), bytes.Repeat([]byte("a"), 1<<20)...), ""},
		{"malformed request line", []byte("GET /\x00\x01 HTTP/9\r\n\r\n"), "HTTP/1.1 400 "},
		{"binary garbage", garbage, string(garbage)},
		{"method without space", []byte("GET"), "GET"},
	}
	for _, tt := range tests {
		tc, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", addr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		tc.SetDeadline(time.Now().Add(20 * time.Second))
		go tc.Write(tt.send)
		var got []byte
		if tt.want == "" {
			got, err = io.ReadAll(tc)
		} else {
			got = make([]byte, len(tt.want))
			_, err = io.ReadFull(tc, got)
		}
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout():
			t.Errorf("%s: no answer and no close within 20 s", tt.name)
		case tt.want != "" && string(got) != tt.want:
			t.Errorf("%s: answer %.40q, want %.40q (%v)", tt.name, got, tt.want, err)
		case tt.want == "" && len(got) > 0 && !bytes.HasPrefix(got, []byte("HTTP/1.1 431 ")):
			t.Errorf("%s: answer %.60q, want a 431 or a closed connection", tt.name, got)
		}
		tc.Close()
	}
	// Garbage instead of a ClientHello.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	conn.Write(garbage[:4096])
	io.Copy(io.Discard, conn)
	conn.Close()
	if _, err := exchange(addr, cfg); err != nil {
		t.Fatalf("the server no longer serves after hostile input: %v", err)
	}
	log := stop()
	if lines := logLines(log, "handshake rejected"); len(lines) != 1 || !strings.Contains(lines[0], "does not look like a TLS handshake") {
		t.Errorf("garbage instead of a ClientHello: rejection lines %q, want one", lines)
	}
}

func TestServeFlagErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"serve", "--log-level", "loud"}, `--log-level "loud": must be error, warn, info or debug`},
		{[]string{"serve", "--idle-timeout", "0s"}, "--idle-timeout 0s: must be positive"},
		{[]string{"serve", "--idle-timeout", "soon"}, "--idle-timeout"},
	} {
		checkExit(t, tt.args, 2, tt.msg)
	}
}

// serveProcess starts `tlsbench serve` as a process of its own (this test
// binary again) with TMPDIR set to tmp, so that its temporary PKI can be
// looked for.
func serveProcess(t *testing.T, tmp string, args ...string) (*exec.Cmd, *bufio.Scanner, *syncBuffer) {
	t.Helper()
	return selfProcess(t, []string{"TMPDIR=" + tmp}, append([]string{"serve"}, args...)...)
}

// selfProcess starts this test binary as the tlsbench command args, with
// env added to the environment, and stops it with the test; it returns
// the command, its stdout and its stderr.
func selfProcess(t *testing.T, env []string, args ...string) (*exec.Cmd, *bufio.Scanner, *syncBuffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(append(os.Environ(), testchild.Env()), env...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, bufio.NewScanner(out), stderr
}

// TestOpenSSLSTimeWWWAgainstServe: openssl s_time -www fetches a page and
// waits for the server to close; against an echo it would wait for the
// idle timeout on every connection.
func TestOpenSSLSTimeWWWAgainstServe(t *testing.T) {
	t.Parallel()
	openssl := peers.Require(t, "openssl")
	addr, caFile, _ := runServe(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, openssl, "s_time", "-connect", addr, "-CAfile", caFile, "-www", "/", "-new", "-time", "2").CombinedOutput()
	if err != nil {
		t.Fatalf("s_time: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`(\d+) connections in [\d.]+s; [\d.]+ connections/user sec, bytes read (\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("s_time output without its figures:\n%s", out)
	}
	conns, _ := strconv.Atoi(string(m[1]))
	read, _ := strconv.Atoi(string(m[2]))
	if conns < 2 || read < conns*len("HTTP/1.1 200 OK") {
		t.Errorf("s_time -www: %d connections, %d bytes read; want several full responses:\n%s", conns, read, out)
	}
}

// TestRevokedIsAServeFlag: run makes new client certificates every time,
// so a list of revoked ones can only be given to serve; run's help does
// not offer it.
func TestRevokedIsAServeFlag(t *testing.T) {
	t.Parallel()
	checkExit(t, []string{"run", "--mutual", "--revoked", "list.txt"}, 2, "unknown flag --revoked")
	for cmd, want := range map[string]bool{"run": false, "serve": true} {
		var out bytes.Buffer
		if err := cli.Run(context.Background(), []string{cmd, "--help"}, &out, io.Discard); err != nil {
			t.Fatalf("%s --help: %v", cmd, err)
		}
		if got := strings.Contains(out.String(), "--revoked"); got != want {
			t.Errorf("%s --help mentions --revoked: %v, want %v", cmd, got, want)
		}
	}
}

// TestServeLogsClientRefusal: openssl s_client that does not trust the
// server's CA refuses the handshake with an alert it sends unencrypted in
// TLS 1.3; the log names that alert, not a bad record MAC.
func TestServeLogsClientRefusal(t *testing.T) {
	t.Parallel()
	openssl := peers.Require(t, "openssl")
	addr, _, stop := runServe(t)
	// A CA file of its own, not the server's: nothing verifies it.
	other := testpki.CA(t)
	otherCA := filepath.Join(t.TempDir(), "other-ca.pem")
	if err := pki.WriteCertsPEM(otherCA, other.Root()); err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{"-tls1_3", "-tls1_2"} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, openssl, "s_client", "-connect", addr, "-verify_return_error", "-CAfile", otherCA, "-no-CApath", "-no-CAstore", version)
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.CombinedOutput()
		cancel()
		if err == nil {
			t.Fatalf("s_client %s trusted a server it has no CA for:\n%s", version, out)
		}
	}
	log := stop()
	lines := logLines(log, "handshake failed")
	if len(lines) != 2 {
		t.Fatalf("%d lines for the refused handshakes, want 2; log:\n%s", len(lines), log)
	}
	for _, l := range lines {
		if !strings.Contains(l, "level=INFO") || !strings.Contains(l, `kind="alert:`) || strings.Contains(l, "bad record MAC") {
			t.Errorf("line %q: want the client's alert, at info level", l)
		}
	}
}

// TestServeCutsOffClientsThatDoNotRead: a client that sends without ever
// reading its echo (or its HTTP answer) fills the server's socket buffer;
// the server gives up after --idle-timeout instead of blocking forever.
func TestServeCutsOffClientsThatDoNotRead(t *testing.T) {
	t.Parallel()
	addr, caFile, _ := runServe(t, "--idle-timeout", "500ms")
	cfg := &tls.Config{RootCAs: caPool(t, caFile), ServerName: "localhost"}
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	tc, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	tc.SetWriteDeadline(time.Now().Add(30 * time.Second))
	sent := 0
	for err == nil && sent < 1<<30 {
		var n int
		n, err = tc.Write(chunk)
		sent += n
	}
	var ne net.Error
	if err == nil || errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("after %d MiB sent without reading, the server still holds the connection (%v)", sent>>20, err)
	}
}

// TestServerErrorsNameFlags checks that the server's errors, which name
// its settings by field, reach users naming the flags that set them, in
// serve and in run, with exit code 2.
func TestServerErrorsNameFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(bad, []byte("zz\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	serve := []string{"serve", "--listen", "127.0.0.1:0"}
	memory := []string{"run", "--transport", "memory", "--quick", "--tls", "1.3", "--concurrency", "1"}
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{append(serve, "--session-store", "redis"), `--session-store "redis": must be tickets or stateful`},
		{append(serve, "--ticket-keys", bad), "--ticket-keys: " + bad + ": line 1: want 64 hex digits (32 bytes)"},
		{append(serve, "--ticket-keys", empty), "--ticket-keys: " + empty + ": no ticket key in the file"},
		{append(serve, "--mutual", "--revoked", bad), "--revoked: " + bad + ": line 1: want 64 hex digits (32 bytes)"},
		{append(memory, "--session-store", "redis"), `--session-store "redis": must be tickets or stateful`},
		{append(memory, "--ticket-keys", empty), "starting the built-in server: --ticket-keys: " + empty + ": no ticket key in the file"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			args := tt.args
			if args[0] == "serve" {
				args = append(args, "--pki-dir", t.TempDir())
			}
			var stdout, stderr bytes.Buffer
			err := cli.Run(context.Background(), args, &stdout, &stderr)
			if got := cli.ExitCode(err); got != 2 || cli.Message(err) != tt.msg {
				t.Errorf("exit %d, message %q; want 2, %q", got, cli.Message(err), tt.msg)
			}
		})
	}
}

// TestServePKIDirForOtherSettings checks the refusal to reuse a PKI
// directory written for other settings (here: without the client identity
// --mutual needs): one line naming the flag, exit 2.
func TestServePKIDirForOtherSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := pki.Init(pki.InitOptions{Dir: dir, ServerKeys: []pki.KeyType{pki.ECDSAP256}}); err != nil {
		t.Fatal(err)
	}
	checkExit(t, []string{"serve", "--listen", "127.0.0.1:0", "--mutual", "--pki-dir", dir}, 2,
		"--pki-dir "+dir+": already holds a PKI (")
	var stdout, stderr bytes.Buffer
	err := cli.Run(context.Background(), []string{"serve", "--listen", "127.0.0.1:0", "--mutual", "--pki-dir", dir}, &stdout, &stderr)
	if m := cli.Message(err); strings.Contains(m, "Force") || strings.Contains(m, "Options") {
		t.Errorf("message %q names the library's settings, not the flags", m)
	}
}

// TestP12PasswordAdviceNamesFlag checks that the key manager's advice for
// a PKCS#12 identity without a password names the flag that gives one.
// Not parallel: it clears the password environment variable (t.Setenv).
func TestP12PasswordAdviceNamesFlag(t *testing.T) {
	t.Setenv(keys.PasswordEnv, "")
	dir := t.TempDir()
	if _, err := pki.Init(pki.InitOptions{Dir: dir, ServerKeys: []pki.KeyType{pki.ECDSAP256}, P12Password: "secret", P12Iterations: 1}); err != nil {
		t.Fatal(err)
	}
	p12 := filepath.Join(dir, "server-ecdsa-p256.p12")
	want := "--identity: " + p12 + ": environment variable " + keys.PasswordEnv +
		" is not set; set it to the PKCS#12 password or give a password file (--p12-password-file FILE)"
	for _, cmd := range []string{"serve", "run"} {
		var stdout, stderr bytes.Buffer
		err := cli.Run(context.Background(), []string{cmd, "--listen", "127.0.0.1:0", "--identity", p12}, &stdout, &stderr)
		if got := cli.Message(err); cli.ExitCode(err) != 2 || got != want {
			t.Errorf("%s: exit %d, message %q; want 2, %q", cmd, cli.ExitCode(err), got, want)
		}
	}
}
