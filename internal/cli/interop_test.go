package cli_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
)

// startServe runs `tlsbench serve` in-process and returns its address and
// CA file, from what it prints, and a function that stops it and returns
// its stderr.
func startServe(t *testing.T, args ...string) (addr, caFile string, stop func() string) {
	addr, caFile, _, _, stop = startServeMutual(t, args...)
	return addr, caFile, stop
}

// startServeMutual is startServe that also returns the client identity
// files serve --mutual prints.
func startServeMutual(t *testing.T, args ...string) (addr, caFile, clientCert, clientKey string, stop func() string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	done := make(chan error, 1)
	all := append([]string{"serve", "--listen", "127.0.0.1:0", "--pki-dir", t.TempDir()}, args...)
	go func() {
		done <- cli.Run(ctx, all, outW, errW)
		outW.Close()
		errW.Close()
	}()
	stderr := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(errR)
		stderr <- string(b)
	}()
	sc := bufio.NewScanner(outR)
	for sc.Scan() {
		line := sc.Text()
		if a, ok := strings.CutPrefix(line, "listening on "); ok {
			addr, _, _ = strings.Cut(a, " ")
		}
		if ca, ok := strings.CutPrefix(line, "CA certificate: "); ok {
			caFile = ca
		}
		if c, ok := strings.CutPrefix(line, "client certificate: "); ok {
			clientCert = c
		}
		if k, ok := strings.CutPrefix(line, "client key: "); ok {
			clientKey = k
		}
		if caFile != "" && (clientKey != "" || !slices.Contains(args, "--mutual")) {
			break
		}
	}
	go io.Copy(io.Discard, outR)
	if addr == "" || caFile == "" {
		cancel()
		t.Fatalf("serve did not print its address and CA file: %v", <-done)
	}
	return addr, caFile, clientCert, clientKey, func() string {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		return <-stderr
	}
}

// sClient runs one openssl s_client connection: it sends a line, waits for
// the echo (by then any TLS 1.3 ticket has arrived), closes stdin and
// returns everything s_client printed.
func sClient(t *testing.T, openssl string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, openssl, append([]string{"s_client"}, args...)...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, "tlsbench-ping\n")
	var out strings.Builder
	sc := bufio.NewScanner(stdout)
	echoed := false
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		// s_client may print the echo right after a session dump,
		// without a line break in between.
		if strings.HasSuffix(strings.TrimSpace(sc.Text()), "tlsbench-ping") && !echoed {
			echoed = true
			stdin.Close()
		}
	}
	cmd.Wait()
	if !echoed {
		t.Fatalf("openssl s_client %v: no echo; output:\n%s", args, out.String())
	}
	return out.String()
}

// TestOpenSSLResumesAgainstServe is the interop check of issue 2: openssl
// s_client saves the session from tlsbench serve and resumes it, for TLS
// 1.2 and TLS 1.3, and the server counts the resumptions too.
func TestOpenSSLResumesAgainstServe(t *testing.T) {
	t.Parallel()
	openssl := peers.Require(t, "openssl")
	addr, ca, stop := startServe(t)
	for _, v := range []string{"1.2", "1.3"} {
		flag := "-tls" + strings.ReplaceAll(v, ".", "_")
		sess := filepath.Join(t.TempDir(), "sess.pem")
		common := []string{"-connect", addr, "-CAfile", ca, "-servername", "localhost", "-verify_return_error", flag}
		first := sClient(t, openssl, append(common, "-sess_out", sess)...)
		if !strings.Contains(first, "New, TLSv"+v) {
			t.Fatalf("TLS %s first connection: want \"New, TLSv%s\"; got:\n%s", v, v, first)
		}
		second := sClient(t, openssl, append(common, "-sess_in", sess)...)
		if !strings.Contains(second, "Reused, TLSv"+v) {
			t.Errorf("TLS %s: openssl did not resume; want \"Reused, TLSv%s\"; got:\n%s", v, v, second)
		}
	}
	if got := stop(); !strings.Contains(got, "served 4 handshakes (2 resumed)") {
		t.Errorf("server summary %q, want 4 handshakes with 2 resumed", got)
	}
}

// TestOpenSSLResumesMutualAgainstServe: openssl s_client presenting a
// client certificate resumes against tlsbench serve --mutual, TLS 1.2 and
// 1.3.
func TestOpenSSLResumesMutualAgainstServe(t *testing.T) {
	t.Parallel()
	openssl := peers.Require(t, "openssl")
	addr, ca, cert, key, stop := startServeMutual(t, "--mutual")
	if cert == "" || key == "" {
		t.Fatal("serve --mutual did not print the client identity files")
	}
	for _, v := range []string{"1.2", "1.3"} {
		flag := "-tls" + strings.ReplaceAll(v, ".", "_")
		sess := filepath.Join(t.TempDir(), "sess.pem")
		common := []string{"-connect", addr, "-CAfile", ca, "-servername", "localhost", "-verify_return_error", flag, "-cert", cert, "-key", key}
		if first := sClient(t, openssl, append(common, "-sess_out", sess)...); !strings.Contains(first, "New, TLSv"+v) {
			t.Fatalf("TLS %s first connection:\n%s", v, first)
		}
		if second := sClient(t, openssl, append(common, "-sess_in", sess)...); !strings.Contains(second, "Reused, TLSv"+v) {
			t.Errorf("TLS %s: openssl did not resume with its client certificate; got:\n%s", v, second)
		}
	}
	// Without a certificate the server refuses the handshake (s_client
	// may not see the alert before it exits: count it on the server).
	exec.Command(openssl, "s_client", "-connect", addr, "-CAfile", ca, "-tls1_3").Run()
	if got := stop(); !strings.Contains(got, "(2 resumed), 1 failed") {
		t.Errorf("server summary %q, want 2 resumed and the client without certificate failed", got)
	}
}

// TestRunTargetOpenSSLServerMutual points run --mutual --target at
// openssl s_server -Verify 1: resumption with a client certificate must
// exceed 99% for TLS 1.2 and 1.3.
func TestRunTargetOpenSSLServerMutual(t *testing.T) {
	t.Parallel()
	openssl := peers.Require(t, "openssl")
	pkiDir := t.TempDir()
	layout, err := pki.Init(pki.InitOptions{Dir: pkiDir, Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	addr := startSServer(t, openssl, "-cert", layout.ServerCerts[pki.ECDSAP256], "-key", layout.ServerKeys[pki.ECDSAP256],
		"-Verify", "1", "-CAfile", layout.RootCert, "-rev")
	var stdout, stderr strings.Builder
	err = cli.Run(context.Background(), []string{"run", "--target", addr, "--sni", "localhost", "--ca", layout.RootCert,
		"--mutual", "--client-cert", layout.ClientCerts[0], "--client-key", layout.ClientKeys[0],
		"--resume", "on", "--concurrency", "1,8", "--handshakes", "32", "--quick", "--format", "json"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	recs, err := results.Decode(strings.NewReader(stdout.String()))
	if err != nil || len(recs) != 4 {
		t.Fatalf("%d records, %v; want 4", len(recs), err)
	}
	for _, r := range recs {
		if r.ResumptionRate < 0.99 || !r.Mutual || r.Target != addr || r.ServerResumed != nil {
			t.Errorf("%s: rate %.3f mutual %v target %q server_resumed %v; want > 0.99, mutual, the target, and null (unknown)",
				r.Name, r.ResumptionRate, r.Mutual, r.Target, r.ServerResumed)
		}
	}
}

// startSServer runs openssl s_server on a free loopback port until the
// test ends and returns its address once it accepts connections.
func startSServer(t *testing.T, openssl string, args ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, openssl, append([]string{"s_server", "-accept", addr, "-quiet"}, args...)...)
	cmd.Stdin = strings.NewReader("")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("openssl s_server did not start: %s", out.String())
	return ""
}
