package proxy_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/proxy"
)

// TestCurlThroughProxy: curl, trusting only the proxy's CA, fetches from
// the origin through the proxy, for a second time resuming with it; and
// a plain http:// request through the proxy is refused with 405.
func TestCurlThroughProxy(t *testing.T) {
	t.Parallel()
	curl := peers.Require(t, "curl")
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: true})
	url := "https://localhost:" + strconv.Itoa(org.port) + "/"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, curl, "-sS", "--proxy", "http://"+p.addr, "--cacert", p.CAFile(), url, url).CombinedOutput()
	if err != nil {
		t.Fatalf("curl: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "tlsbench: TLS handshake complete"); n != 2 {
		t.Fatalf("curl printed:\n%s\nwant the origin's answer twice", out)
	}
	if c := p.Counters(); c.Connects < 1 || c.Mints != 1 || c.OriginHandshakes < 1 {
		t.Errorf("counters %+v", c)
	}

	out, _ = exec.CommandContext(ctx, curl, "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--proxy", "http://"+p.addr,
		"http://localhost:"+strconv.Itoa(org.port)+"/").CombinedOutput()
	if string(out) != "405" {
		t.Errorf("plain http through the proxy: %q, want 405", out)
	}
}

// TestOpenSSLThroughProxy: openssl s_client -proxy verifies the minted
// certificate with the proxy's CA and talks to the origin; against an
// origin the proxy does not trust it sees the 502.
func TestOpenSSLThroughProxy(t *testing.T) {
	t.Parallel()
	openssl := peers.Require(t, "openssl")
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, openssl, "s_client", "-proxy", p.addr, "-connect", "localhost:"+strconv.Itoa(org.port),
		"-CAfile", p.CAFile(), "-verify_return_error", "-servername", "localhost", "-brief")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, "ping through the proxy\n")
	// The echo, then the end of input: s_client sends close_notify,
	// which the proxy passes on, and the origin's answers it.
	echoed, _ := bufio.NewReader(stdout).ReadString('\n')
	stdin.Close()
	io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil || echoed != "ping through the proxy\n" {
		t.Fatalf("s_client: %v, echo %q\n%s", err, echoed, stderr.String())
	}
	if !strings.Contains(stderr.String(), "Verification: OK") {
		t.Errorf("s_client did not verify the issued certificate:\n%s", stderr.String())
	}

	q := startProxy(t, org, proxy.Options{MintCache: true, OriginCA: p.CAFile()}) // not the origin's CA
	cmd = exec.CommandContext(ctx, openssl, "s_client", "-proxy", q.addr, "-connect", "localhost:"+strconv.Itoa(org.port), "-CAfile", q.CAFile())
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "502") {
		t.Errorf("s_client through a proxy that cannot verify the origin: %v\n%s", err, out)
	}
}

// TestOpenSSLVerifiesConstrainedCA: openssl verifies what the proxy
// mints under its CA's name constraints: a name under a CA limited to
// names, an address under one limited to loopback.
func TestOpenSSLVerifiesConstrainedCA(t *testing.T) {
	t.Parallel()
	openssl := peers.Require(t, "openssl")
	org := startOrigin(t)
	for _, tc := range []struct {
		allow      []string
		host, args string
	}{
		{[]string{"localhost"}, "localhost", "-servername localhost -verify_hostname localhost"},
		{nil, "127.0.0.1", "-verify_ip 127.0.0.1"},
	} {
		p := startProxy(t, org, proxy.Options{MintCache: true, AllowDest: tc.allow})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		args := append([]string{"s_client", "-proxy", p.addr, "-connect", net.JoinHostPort(tc.host, strconv.Itoa(org.port)),
			"-CAfile", p.CAFile(), "-verify_return_error", "-brief"}, strings.Fields(tc.args)...)
		cmd := exec.CommandContext(ctx, openssl, args...)
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil || !strings.Contains(string(out), "Verification: OK") {
			t.Errorf("s_client to %s (allowed %q): %v\n%s", tc.host, tc.allow, err, out)
		}
	}
}
