package cli_test

import (
	"bufio"
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
	"github.com/tlsbench/tlsbench/internal/testbuild"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
)

// runVersus runs tlsbench run with args (an interleaved run) bounded in
// time, and returns its stdout, stderr and the records of --out. The
// tests give --handshakes below the default 128: an iteration of 32 or
// 64 still costs each side's server well over the 10 ms tick in which
// /proc counts its CPU, at a fraction of the time.
func runVersus(t *testing.T, args ...string) (string, string, []results.Record, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	err := cli.Run(ctx, append([]string{"run", "--out", out}, args...), &stdout, &stderr)
	recs, rerr := results.ReadFile(out)
	if rerr != nil {
		t.Fatalf("%v (run: %v; %s)", rerr, err, stderr.String())
	}
	return stdout.String(), stderr.String(), recs, err
}

// checkSides checks an interleaved run's records: every case has exactly
// the sides given, with equal sample counts, the versus description, and
// (when cpu) each side's server CPU.
func checkSides(t *testing.T, recs []results.Record, cases int, versus string, cpu bool, sides ...string) {
	t.Helper()
	if len(recs) != cases*len(sides) {
		t.Fatalf("%d records, want %d cases x %d sides", len(recs), cases, len(sides))
	}
	byName := map[string]map[string]results.Record{}
	for _, r := range recs {
		if byName[r.Name] == nil {
			byName[r.Name] = map[string]results.Record{}
		}
		byName[r.Name][r.Side] = r
	}
	for name, got := range byName {
		n := len(got[sides[0]].SamplesUS)
		for _, s := range sides {
			r, ok := got[s]
			if !ok {
				t.Errorf("%s: no record of side %s", name, s)
				continue
			}
			if len(r.SamplesUS) != n || n < 6 {
				t.Errorf("%s side %s: %d samples, side %s %d: want equal, at least 6", name, s, len(r.SamplesUS), sides[0], n)
			}
			if r.Versus != versus {
				t.Errorf("%s side %s: versus %q, want %q", name, s, r.Versus, versus)
			}
			if cpu && (r.ServerCPUUS == nil || *r.ServerCPUUS <= 0) {
				t.Errorf("%s side %s: no server CPU", name, s)
			}
			if r.Resume && r.ResumptionRate < 0.99 {
				t.Errorf("%s side %s: resumed %.3f", name, s, r.ResumptionRate)
			}
		}
	}
}

// TestVersusTwoNginx measures two nginx servers against each other, each
// with its --server-pid/--versus-pid, and prints the paired comparison.
func TestVersusTwoNginx(t *testing.T) {
	t.Parallel()
	peers.Require(t, "nginx")
	cert, key, ca := peerPKI(t)
	cfg := peers.NginxConfig{Cert: cert, Key: key, Tickets: true, SessionCache: "shared:SSL:1m"}
	a, b := peers.NginxT(t, cfg), peers.NginxT(t, cfg)
	stdout, stderr, recs, err := runVersus(t, "--target", a.Addr, "--versus", b.Addr, "--ca", ca, "--sni", "localhost",
		"--alpn", "http/1.1", "--server-pid", strconv.Itoa(a.PID()), "--versus-pid", strconv.Itoa(b.PID()),
		"--tls", "1.2,1.3", "--resume", "off,on", "--concurrency", "8", "--quick", "--handshakes", "64")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	checkSides(t, recs, 4, b.Addr, true, results.SideA, results.SideB)
	for _, r := range recs {
		want := a.Addr
		if r.Side == results.SideB {
			want = b.Addr
		}
		if r.Target != want {
			t.Errorf("%s side %s: target %q, want %q", r.Name, r.Side, r.Target, want)
		}
	}
	if !strings.Contains(stdout, "Wilcoxon signed-rank") || !strings.Contains(stdout, "Summary") {
		t.Errorf("no paired comparison after the run:\n%s", stdout)
	}
}

// TestVersusTwoServeProcesses measures two tlsbench serve processes (the
// same identity) against each other as external servers.
func TestVersusTwoServeProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: interleaved runs against two server processes")
	}
	t.Parallel()
	layout, err := pki.Init(pki.InitOptions{Dir: filepath.Join(t.TempDir(), "pki")})
	if err != nil {
		t.Fatal(err)
	}
	id := layout.ServerCerts[pki.ECDSAP256] + "," + layout.ServerKeys[pki.ECDSAP256]
	var addrs [2]string
	var pids [2]int
	for i := range addrs {
		cmd, out, stderr := serveProcess(t, t.TempDir(), "--listen", "127.0.0.1:0", "--identity", id)
		addrs[i] = listeningAddr(t, out, stderr)
		pids[i] = cmd.Process.Pid
	}
	_, stderr, recs, err := runVersus(t, "--target", addrs[0], "--versus", addrs[1], "--ca", layout.RootCert, "--sni", "localhost",
		"--server-pid", strconv.Itoa(pids[0]), "--versus-pid", strconv.Itoa(pids[1]),
		"--tls", "1.3", "--resume", "off,on", "--concurrency", "4", "--quick", "--handshakes", "32")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	checkSides(t, recs, 2, addrs[1], true, results.SideA, results.SideB)
}

// listeningAddr reads serve's "listening on ADDR" line.
func listeningAddr(t *testing.T, out *bufio.Scanner, stderr *syncBuffer) string {
	t.Helper()
	for out.Scan() {
		if a, ok := strings.CutPrefix(out.Text(), "listening on "); ok {
			addr, _, _ := strings.Cut(a, " ")
			go func() {
				for out.Scan() {
				}
			}()
			return addr
		}
	}
	t.Fatalf("serve never said where it listens: %s", stderr)
	return ""
}

// buildTLSBench builds the tlsbench program into dir once per version
// given, and returns their paths. Linking the program takes seconds: it
// is built once, stamped versionStamp, and each version is a copy with
// that stamp rewritten (every version as long as the stamp, so that
// nothing in the program moves).
func buildTLSBench(t *testing.T, dir string, versions ...string) []string {
	t.Helper()
	stamped := testbuild.Program(t, dir, "tlsbench-stamped", testbuild.Options{Version: versionStamp})
	prog, err := os.ReadFile(stamped)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(prog, []byte(versionStamp)) {
		t.Fatalf("the built program holds no version %s to rewrite", versionStamp)
	}
	var bins []string
	for _, v := range versions {
		if len(v) != len(versionStamp) {
			t.Fatalf("version %q: must be as long as %q", v, versionStamp)
		}
		bin := filepath.Join(dir, "tlsbench-"+v)
		if err := os.WriteFile(bin, bytes.ReplaceAll(prog, []byte(versionStamp), []byte(v)), 0o755); err != nil {
			t.Fatal(err)
		}
		bins = append(bins, bin)
	}
	return bins
}

// versionStamp is the version buildTLSBench's one build carries.
const versionStamp = "v0.0.0-stamp"

// TestVersusServerOtherBinary builds two tlsbench programs of different
// versions and runs one with the other's built-in server as side b (and
// its own measured twice): side b's records name the other program's
// build, and the comparison follows the run.
func TestVersusServerOtherBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds a second tlsbench program")
	}
	t.Parallel()
	if testing.Short() {
		t.Skip("builds two tlsbench programs; skipped with -short")
	}
	dir := t.TempDir()
	bins := buildTLSBench(t, dir, "v0.0.0-self0", "v0.0.0-other")
	self, other := bins[0], bins[1]
	out := filepath.Join(dir, "r.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, "run", "--versus-server", other, "--versus-self",
		"--tls", "1.3", "--resume", "off,on", "--concurrency", "4", "--quick", "--handshakes", "48", "--out", out)
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stdout)
	}
	recs, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	checkSides(t, recs, 2, "server "+other, true, results.SideA, results.SideB, results.SideA2)
	for _, r := range recs {
		// Each side names its own server's program, so that the two
		// environments differ in exactly that.
		want := "v0.0.0-self0 (go"
		if r.Side == results.SideB {
			want = "v0.0.0-other (go"
		}
		if build := r.Env.Peers["tlsbench-server"]; !strings.HasPrefix(build, want) {
			t.Errorf("%s side %s: tlsbench-server peer %q, want %s...", r.Name, r.Side, build, want)
		}
		if r.Env.TLSBenchVersion != "v0.0.0-self0" {
			t.Errorf("%s side %s: tlsbench %q, want the running program's", r.Name, r.Side, r.Env.TLSBenchVersion)
		}
	}
	if !strings.Contains(string(stdout), "Wilcoxon signed-rank") || !strings.Contains(string(stdout), "(A/A)") {
		t.Errorf("no paired comparison with the A/A floor after the run:\n%s", stdout)
	}
}

// TestVersusNginxAgainstServe measures nginx (side a) against a tlsbench
// serve process (side b): each side's record names its own server, never
// the other side's.
func TestVersusNginxAgainstServe(t *testing.T) {
	t.Parallel()
	peers.Require(t, "nginx")
	layout, err := pki.Init(pki.InitOptions{Dir: filepath.Join(t.TempDir(), "pki")})
	if err != nil {
		t.Fatal(err)
	}
	cert, key := layout.ServerCerts[pki.ECDSAP256], layout.ServerKeys[pki.ECDSAP256]
	n := peers.NginxT(t, peers.NginxConfig{Cert: cert, Key: key, Tickets: true})
	cmd, out, serr := serveProcess(t, t.TempDir(), "--listen", "127.0.0.1:0", "--identity", cert+","+key)
	addr := listeningAddr(t, out, serr)
	_, stderr, recs, err := runVersus(t, "--target", n.Addr, "--versus", addr, "--ca", layout.RootCert, "--sni", "localhost",
		"--alpn", "http/1.1", "--server-pid", strconv.Itoa(n.PID()), "--versus-pid", strconv.Itoa(cmd.Process.Pid),
		"--tls", "1.3", "--resume", "on", "--concurrency", "4", "--quick", "--handshakes", "64")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	checkSides(t, recs, 1, addr, true, results.SideA, results.SideB)
	for _, r := range recs {
		_, nginx := r.Env.Peers["nginx"]
		if nginx != (r.Side == results.SideA) {
			t.Errorf("side %s: peers %v: only side a's server is nginx", r.Side, r.Env.Peers)
		}
	}
}
