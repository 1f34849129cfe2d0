package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/proxy"
)

// runMessage runs tlsbench as a process (this test binary: its children,
// the built-in server and proxy, are too) and returns its exit status and
// its stderr.
func runMessage(t *testing.T, args ...string) (int, string) {
	t.Helper()
	return runMessageWithin(t, 2*time.Minute, args...)
}

// runMessageWithin is runMessage for a command stopped after limit: one
// that must refuse to start is stopped soon if it started anyway.
func runMessageWithin(t *testing.T, limit time.Duration, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), mainEnv+"=1", testchild.Env())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Run()
	return cmd.ProcessState.ExitCode(), strings.TrimSpace(stderr.String())
}

// TestProxyUntrustedTargetAdvice: the built-in proxy refusing a target
// whose certificate it cannot verify (no --ca) is advised --ca, not told
// the target may be down.
func TestProxyUntrustedTargetAdvice(t *testing.T) {
	t.Parallel()
	addr, _, stop := startServe(t)
	defer stop()
	code, msg := runMessage(t, "run", "--proxy", "builtin", "--target", addr, "--tls", "1.3", "--resume", "off",
		"--concurrency", "1", "--handshakes", "4", "--iterations", "1", "--warmup", "0")
	if code != 1 || !strings.Contains(msg, "with 502") ||
		!strings.Contains(msg, "the proxy does not trust the target's certificate: give its CA with --ca") ||
		strings.Contains(msg, "could not reach") {
		t.Fatalf("exit %d, message %q: want the proxy's untrusted-certificate advice", code, msg)
	}
}

// TestProxyFullAdvice: a proxy at its connection limit (503 from
// tlsbench's proxy) says so, and is not told the target may be down.
func TestProxyFullAdvice(t *testing.T) {
	t.Parallel()
	// The held slot must outlast a run started on a loaded machine: the
	// proxy drops a connection that sends no request within
	// RequestTimeout.
	p, err := proxy.New(proxy.Options{PKIDir: t.TempDir(), MaxConns: 1, RequestTimeout: 10 * time.Minute, HandshakeTimeout: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	sp := servertest.StartProxy(t, p)
	hold := fillOnlySlot(t, sp.Addr)
	defer hold.Close()
	code, msg := runMessage(t, "run", "--proxy", "http://"+sp.Addr, "--proxy-ca", p.CAFile(), "--tls", "1.3", "--resume", "off",
		"--concurrency", "1", "--handshakes", "4", "--iterations", "1", "--warmup", "0")
	if code != 1 || !strings.Contains(msg, "with 503") ||
		!strings.Contains(msg, "the proxy is at its connection limit: lower --concurrency, or raise the proxy's limit (tlsbench proxy: --max-conns)") ||
		strings.Contains(msg, "could not reach") {
		t.Fatalf("exit %d, message %q: want the connection-limit advice", code, msg)
	}
}

// TestProxyPortAdvice: a port the proxy does not tunnel to (403 with
// tlsbench's proxy's reason) is advised as such, naming the proxy's flag.
func TestProxyPortAdvice(t *testing.T) {
	t.Parallel()
	p, err := proxy.New(proxy.Options{PKIDir: t.TempDir(), ConnectPorts: []int{443}})
	if err != nil {
		t.Fatal(err)
	}
	sp := servertest.StartProxy(t, p)
	code, msg := runMessage(t, "run", "--proxy", "http://"+sp.Addr, "--proxy-ca", p.CAFile(), "--tls", "1.3", "--resume", "off",
		"--concurrency", "1", "--handshakes", "4", "--iterations", "1", "--warmup", "0")
	if code != 1 || !strings.Contains(msg, "with 403") ||
		!strings.Contains(msg, "the proxy does not tunnel to this port: allow it in the proxy's rules (tlsbench proxy: --connect-ports)") {
		t.Fatalf("exit %d, message %q: want the port advice", code, msg)
	}
}

// fillOnlySlot opens a connection that holds a proxy's only slot (it
// never sends a request) and returns it once a second connection was
// answered 503 while the first is still open. The two race for the slot
// when the proxy accepts them out of order: then the second holds it and
// the first was answered 503, and the attempt is made again.
func fillOnlySlot(t *testing.T, addr string) net.Conn {
	t.Helper()
	for attempt := 0; attempt < 20; attempt++ {
		hold, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		probe, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		probe.SetDeadline(time.Now().Add(5 * time.Second))
		line, _ := bufio.NewReader(probe).ReadString('\n')
		probe.Close()
		hold.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		_, rerr := hold.Read(make([]byte, 1))
		hold.SetReadDeadline(time.Time{})
		var ne net.Error
		if strings.Contains(line, " 503 ") && errors.As(rerr, &ne) && ne.Timeout() {
			return hold // refused the probe, and still open itself
		}
		hold.Close()
		time.Sleep(100 * time.Millisecond) // the slot is freed behind the close
	}
	t.Fatal("could not fill the proxy's only slot in 20 attempts")
	return nil
}
