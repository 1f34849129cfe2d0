package cli_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli"
)

// nofileEnv makes this test binary, started as tlsbench, lower its
// descriptor limit (soft and hard) to the value given first.
const nofileEnv = "TLSBENCH_TEST_NOFILE"

func limitDescriptorsIfAsked() {
	n, err := strconv.ParseUint(os.Getenv(nofileEnv), 10, 64)
	if err != nil {
		return
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		panic(err)
	}
}

// holdSilent opens n connections to addr that send nothing, and returns
// them.
func holdSilent(t *testing.T, addr string, n int) []net.Conn {
	t.Helper()
	conns := make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	return conns
}

// closedByServer returns the connections of conns the server closed
// within d, and the others.
func closedByServer(conns []net.Conn, d time.Duration) (closed, open []net.Conn) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.SetReadDeadline(time.Now().Add(d))
			_, err := c.Read(make([]byte, 1))
			var ne net.Error
			shut := err != nil && !(errorsAs(err, &ne) && ne.Timeout())
			mu.Lock()
			defer mu.Unlock()
			if shut {
				closed = append(closed, c)
			} else {
				open = append(open, c)
			}
		}()
	}
	wg.Wait()
	return closed, open
}

func errorsAs(err error, ne *net.Error) bool {
	e, ok := err.(net.Error)
	if ok {
		*ne = e
	}
	return ok
}

// legitimate runs one handshake against addr, bounded by d, and returns
// how long it took and its error.
func legitimate(addr, caFile string, d time.Duration) (time.Duration, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return 0, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	start := time.Now()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: d, Deadline: start.Add(d)}, "tcp", addr, &tls.Config{RootCAs: pool, ServerName: "localhost"})
	if err == nil {
		c.Close()
	}
	return time.Since(start), err
}

// TestServeMaxConns: with --max-conns 50 and 110 silent clients held
// open (and handshake and first-byte timeouts of a minute), the server
// holds 50 and closes the other 60 at once; a legitimate handshake meanwhile
// ends at once (refused, not left waiting), and succeeds once the silent
// clients have gone. Each refusal is logged, at most 10 lines a second,
// then a count of the others, and the server's last line counts them.
func TestServeMaxConns(t *testing.T) {
	t.Parallel()
	addr, caFile, stop := startServe(t, "--max-conns", "50", "--handshake-timeout", "1m", "--first-byte-timeout", "1m", "--log-level", "warn")
	start := time.Now()
	conns := holdSilent(t, addr, 110)
	closed, open := closedByServer(conns, 3*time.Second)
	if len(closed) != 60 || len(open) != 50 {
		t.Fatalf("of 110 silent clients the server closed %d and held %d, want 60 and 50", len(closed), len(open))
	}
	if d, err := legitimate(addr, caFile, 30*time.Second); err == nil || d > 3*time.Second {
		t.Errorf("a handshake at the connection limit: %v after %v, want refused at once", err, d)
	}
	for _, c := range open {
		c.Close()
	}
	var err error
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if _, err = legitimate(addr, caFile, 5*time.Second); err == nil {
			break
		}
	}
	if err != nil {
		t.Errorf("a handshake after the silent clients left: %v", err)
	}
	elapsed := time.Since(start)
	log := stop()
	checkRefusalLog(t, log, elapsed)
}

// checkRefusalLog checks that every refusal the server counts is in log,
// as a line or in a count of suppressed lines, at most 10 lines a second.
func checkRefusalLog(t *testing.T, log string, elapsed time.Duration) {
	t.Helper()
	lines := len(logLines(log, "connection refused: at the connection limit"))
	suppressed := 0
	for _, m := range regexp.MustCompile(`suppressed=(\d+)`).FindAllStringSubmatch(log, -1) {
		n, _ := strconv.Atoi(m[1])
		suppressed += n
	}
	m := regexp.MustCompile(`(\d+) connections refused at the connection limit`).FindStringSubmatch(log)
	if m == nil {
		t.Fatalf("log:\n%s\nwant the last line to count the refused connections", log)
	}
	refused, _ := strconv.Atoi(m[1])
	if refused < 61 || lines < 1 || lines > 10*(int(elapsed/time.Second)+1) || lines+suppressed != refused {
		t.Errorf("%d refused, %d lines and %d suppressed in %v; log:\n%s\nwant at least 61, each a line or counted, at most 10 lines a second",
			refused, lines, suppressed, elapsed, log)
	}
	if strings.Count(log, "max_conns=50") != lines {
		t.Errorf("the refusal lines do not name the limit:\n%s", log)
	}
}

// TestServeDefaultMaxConnsKeepsAccepting: a server whose descriptor
// limit is 200, held by 250 silent clients (handshake timeout a minute),
// still answers a legitimate handshake at once (refused or served): by
// default it caps its connections below the descriptor limit and closes
// the excess, instead of running out of descriptors and leaving new
// connections, legitimate ones too, in the kernel's listen queue.
func TestServeDefaultMaxConnsKeepsAccepting(t *testing.T) {
	t.Parallel()
	cmd, stdout, stderr := selfProcess(t, []string{nofileEnv + "=200", "TMPDIR=" + t.TempDir()},
		"serve", "--listen", "127.0.0.1:0", "--handshake-timeout", "1m")
	var addr, caFile string
	for caFile == "" && stdout.Scan() {
		line := stdout.Text()
		if a, ok := strings.CutPrefix(line, "listening on "); ok {
			addr, _, _ = strings.Cut(a, " ")
		}
		if ca, ok := strings.CutPrefix(line, "CA certificate: "); ok {
			caFile = ca
		}
	}
	if caFile == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("serve did not start: %s", stderr)
	}
	go func() {
		for stdout.Scan() {
		}
	}()
	holdSilent(t, addr, 250)
	// The first-byte timeout (3 s) would free the descriptors too: the
	// handshake must end well before it.
	d, err := legitimate(addr, caFile, 2500*time.Millisecond)
	if d >= 2500*time.Millisecond || err != nil && strings.Contains(err.Error(), "no such file") {
		t.Errorf("a handshake while silent clients hold the server: %v after %v, want it answered at once; stderr:\n%s", err, d, stderr)
	}
}

// TestHostNameFlags: a host name no server could have is a usage error
// (exit 2) naming the flag, before any work: a 70,000-character --sni,
// a 300-character --hosts label, --target with a bad host.
func TestHostNameFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/pki"
	for _, tt := range []struct {
		name string
		args []string
		msg  string
	}{
		{"long sni", []string{"run", "--target", "127.0.0.1:1", "--sni", strings.Repeat("a", 70000)}, `--sni: "aaaa`},
		{"long hosts label", []string{"pki", "init", "--dir", dir, "--hosts", strings.Repeat("b", 300) + ".test"}, `--hosts: "bbbb`},
		{"target", []string{"run", "--target", "a..b:443"}, `--target: the host "a..b"`},
		{"listen", []string{"serve", "--listen", "a..b:0"}, `--listen: the host "a..b"`},
		{"long target without port", []string{"run", "--target", strings.Repeat("c", 70000)}, `--target`},
		{"long listen without port", []string{"serve", "--listen", strings.Repeat("d", 70000)}, `--listen "dddd`},
		{"long proxy listen without port", []string{"proxy", "--listen", strings.Repeat("e", 70000)}, `--listen`},
		{"long run listen without port", []string{"run", "--listen", strings.Repeat("f", 70000)}, `--listen "ffff`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := cli.Run(context.Background(), tt.args, &stdout, &stderr)
			m := cli.Message(err)
			if got := cli.ExitCode(err); got != 2 {
				t.Errorf("exit %d, want 2 (%.200s)", got, m)
			}
			if !strings.Contains(m, tt.msg) || strings.Contains(m, "\n") || len(m) > 300 {
				t.Errorf("message %.300q, want one short line containing %q", m, tt.msg)
			}
		})
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("pki init with a bad --hosts wrote a directory")
	}
}
