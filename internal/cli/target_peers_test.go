package cli_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
)

// TestRunTargetNginx is issue 5's acceptance check: run --target against
// nginx (one worker, ECDSA P-256, tickets and a shared cache) resumes
// above 99% in every TLS 1.2 and 1.3 resume case, and --server-pid
// reports nginx's CPU (master and worker) per handshake.
func TestRunTargetNginx(t *testing.T) {
	t.Parallel()
	peers.Require(t, "nginx")
	dir := t.TempDir()
	layout, err := pki.Init(pki.InitOptions{Dir: filepath.Join(dir, "pki")})
	if err != nil {
		t.Fatal(err)
	}
	n := peers.NginxT(t, peers.NginxConfig{
		Cert: layout.ServerCerts[pki.ECDSAP256], Key: layout.ServerKeys[pki.ECDSAP256],
		Tickets: true, SessionCache: "shared:SSL:1m",
	})
	out := filepath.Join(dir, "r.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	err = cli.Run(ctx, []string{"run", "--target", n.Addr, "--ca", layout.RootCert, "--sni", "localhost",
		"--alpn", "http/1.1", "--server-pid", strconv.Itoa(n.PID()),
		"--tls", "1.2,1.3", "--resume", "off,on", "--concurrency", "1,8",
		"--quick", "--handshakes", "64", "--format", "json", "--out", out}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run --target: %v\n%s", err, stderr.String())
	}
	recs, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8", len(recs))
	}
	for _, r := range recs {
		if r.Resume && r.ResumptionRate < 0.99 {
			t.Errorf("%s: resumption rate %.3f, want above 0.99", r.Name, r.ResumptionRate)
		}
		if !r.Resume && r.Resumed != 0 {
			t.Errorf("%s: %d resumed in a full-handshake case", r.Name, r.Resumed)
		}
		if r.ServerCPUUS == nil || *r.ServerCPUUS <= 0 {
			t.Errorf("%s: no server CPU per handshake from --server-pid", r.Name)
		}
		if !strings.HasPrefix(r.Name, "handshake/tls1.") {
			t.Errorf("record name %q", r.Name)
		}
	}
}

// TestServerPIDMustServeTheTarget: a --server-pid whose process does not
// listen on the target's port (here a sleep) would report its CPU as the
// server's, about nothing: the run refuses it, naming the flag.
func TestServerPIDMustServeTheTarget(t *testing.T) {
	t.Parallel()
	cert, key, ca := peerPKI(t)
	n := peers.NginxT(t, peers.NginxConfig{Cert: cert, Key: key})
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	pid := strconv.Itoa(sleep.Process.Pid)
	msg, _, err := runTarget(t, n.Addr, ca, "--server-pid", pid,
		"--tls", "1.3", "--resume", "off", "--concurrency", "1", "--quick")
	if cli.ExitCode(err) != 2 || !strings.Contains(msg, "--server-pid "+pid+": neither that process nor its children listen on port") {
		t.Fatalf("exit %d, message %q: want exit 2 naming --server-pid", cli.ExitCode(err), msg)
	}
}

// TestServerPIDOfAnAncestorRefused: pid 1, or tlsbench's own pid, has the
// server among its descendants (the listening check passes) but also
// tlsbench's clients, whose CPU it would count as the server's: refused,
// naming the flag, for --server-pid and --versus-pid alike.
func TestServerPIDOfAnAncestorRefused(t *testing.T) {
	t.Parallel()
	cert, key, ca := peerPKI(t)
	n := peers.NginxT(t, peers.NginxConfig{Cert: cert, Key: key})
	n2 := peers.NginxT(t, peers.NginxConfig{Cert: cert, Key: key})
	for _, pid := range []string{"1", strconv.Itoa(os.Getpid())} {
		for _, flags := range [][]string{
			{"--server-pid", pid},
			{"--versus", n2.Addr, "--versus-pid", pid},
		} {
			args := append([]string{"--tls", "1.3", "--resume", "off", "--concurrency", "1", "--quick"}, flags...)
			msg, _, err := runTarget(t, n.Addr, ca, args...)
			want := flags[len(flags)-2] + " " + pid + ": that process is tlsbench itself or one of its ancestors"
			if cli.ExitCode(err) != 2 || !strings.Contains(msg, want) {
				t.Errorf("%v: exit %d, message %q: want exit 2 saying %q", flags, cli.ExitCode(err), msg, want)
			}
		}
	}
}
