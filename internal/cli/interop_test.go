package cli_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli"
)

// needTool returns the path of a real peer program. Missing it skips the
// test on a developer machine but fails it in CI, where .ci/run installs
// every peer: a skipped interop test must never pass for a green run.
func needTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed; .ci/run must install it", name)
		}
		t.Skipf("%s is not installed", name)
	}
	return path
}

// startServe runs `tlsbench serve` in-process and returns its address and
// CA file, from what it prints, and a function that stops it and returns
// its stderr.
func startServe(t *testing.T, args ...string) (addr, caFile string, stop func() string) {
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
			break
		}
	}
	go io.Copy(io.Discard, outR)
	if addr == "" || caFile == "" {
		cancel()
		t.Fatalf("serve did not print its address and CA file: %v", <-done)
	}
	return addr, caFile, func() string {
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
		if strings.TrimSpace(sc.Text()) == "tlsbench-ping" {
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
	openssl := needTool(t, "openssl")
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
