package cli_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli"
)

// TestProxyCommand: `tlsbench proxy` in front of `tlsbench serve` prints
// where it listens and the CA it wrote (key 0600), tunnels a client that
// trusts that CA to the server, logs a refused request on stderr in one
// line, and sums up when stopped.
func TestProxyCommand(t *testing.T) {
	t.Parallel()
	origin, originCA, _ := runServe(t)
	_, port, _ := net.SplitHostPort(origin)
	pkiDir := filepath.Join(t.TempDir(), "proxy-pki")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- cli.Run(ctx, []string{"proxy", "--listen", "127.0.0.1:0", "--pki-dir", pkiDir,
			"--connect-ports", port, "--origin-ca", originCA, "--buffer", "4k", "--read-fill"}, outW, stderr)
		outW.Close()
	}()
	var addr, caFile string
	sc := bufio.NewScanner(outR)
	for caFile == "" && sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "proxy listening on "); ok {
			addr, _, _ = strings.Cut(a, " ")
			if !strings.Contains(a, "buffer 4k, read fill on, kernel TLS off, mint cache on") {
				t.Errorf("banner %q", sc.Text())
			}
		}
		if ca, ok := strings.CutPrefix(sc.Text(), "CA certificate: "); ok {
			caFile = ca
		}
	}
	go io.Copy(io.Discard, outR)
	if addr == "" || caFile != filepath.Join(pkiDir, "proxy-ca.pem") {
		cancel()
		t.Fatalf("proxy did not start (addr %q, CA %q): %v; stderr: %s", addr, caFile, <-done, stderr)
	}
	if fi, err := os.Stat(filepath.Join(pkiDir, "proxy-ca-key.pem")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("CA key: %v, %v; want mode 0600", fi, err)
	}

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	fmt.Fprintf(c, "CONNECT localhost:%s HTTP/1.1\r\n\r\n", port)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
	if err != nil || resp.StatusCode != 200 || br.Buffered() != 0 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	if _, err := exchangeOver(c, &tls.Config{RootCAs: caPool(t, caFile), ServerName: "localhost"}); err != nil {
		t.Fatalf("through the proxy: %v", err)
	}
	c.Close()

	g, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(g, "GET http://localhost:%s/ HTTP/1.1\r\n\r\n", port)
	io.Copy(io.Discard, g)
	g.Close()

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("proxy: %v", err)
	}
	log := stderr.String()
	if strings.Count(log, "request refused") != 1 || !strings.Contains(log, "status=405") {
		t.Errorf("stderr: want one line for the refused GET:\n%s", log)
	}
	if !strings.Contains(log, "relayed 1 connections") || !strings.Contains(log, "1 refused, 1 certificates issued") {
		t.Errorf("stderr: want the summary:\n%s", log)
	}
}

// exchangeOver handshakes over c and echoes one byte.
func exchangeOver(c net.Conn, cfg *tls.Config) (tls.ConnectionState, error) {
	tc := tls.Client(c, cfg)
	if err := tc.Handshake(); err != nil {
		return tls.ConnectionState{}, err
	}
	if _, err := tc.Write([]byte("x")); err != nil {
		return tls.ConnectionState{}, err
	}
	if _, err := io.ReadFull(tc, make([]byte, 1)); err != nil {
		return tls.ConnectionState{}, err
	}
	return tc.ConnectionState(), tc.Close()
}

// TestProxyListenV4Insecure: --listen 0.0.0.0:0 listens on IPv4 only and
// says so; --origin-insecure warns on stderr at start.
func TestProxyListenV4Insecure(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- cli.Run(ctx, []string{"proxy", "--listen", "0.0.0.0:0", "--pki-dir", filepath.Join(t.TempDir(), "pki"),
			"--origin-insecure"}, outW, stderr)
		outW.Close()
	}()
	var banner string
	sc := bufio.NewScanner(outR)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "CA certificate: ") {
			break
		}
		if strings.HasPrefix(sc.Text(), "proxy listening on ") {
			banner = sc.Text()
		}
	}
	go io.Copy(io.Discard, outR)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("proxy: %v; stderr: %s", err, stderr)
	}
	if !strings.HasPrefix(banner, "proxy listening on 0.0.0.0:") {
		t.Errorf("banner %q: want the IPv4 address it listens on", banner)
	}
	if !strings.Contains(banner, "origin sessions on)") {
		t.Errorf("banner %q: origin sessions are on by default", banner)
	}
	if log := stderr.String(); strings.Count(log, "origin certificates are NOT verified") != 1 {
		t.Errorf("stderr: want one warning for --origin-insecure:\n%s", log)
	}
}
