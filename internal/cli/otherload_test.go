package cli_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
)

// spinEnv makes this test binary keep a CPU busy in a loop of its own:
// "serve" beside what it runs (a server process that works while its
// side is idle, as a JVM's compiler and collector do between rounds),
// "alone" with nothing else (a foreign process burning CPU).
const spinEnv = "TLSBENCH_TEST_SPIN"

func spinIfAsked() {
	switch os.Getenv(spinEnv) {
	case "serve":
		go spin()
	case "alone":
		spin()
	}
}

func spin() {
	for n := 0; ; n++ {
		_ = n * n
	}
}

// spinningProcess is this test binary run with spinEnv=how and args (a
// tlsbench command, or none), started and stopped with the test; stdout
// is its output.
func spinningProcess(t *testing.T, how string, args ...string) (cmd *exec.Cmd, stdout *bufio.Scanner, stderr *syncBuffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), spinEnv+"="+how, testchild.Env(), "TMPDIR="+t.TempDir())
	stderr = &syncBuffer{}
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

// otherLoadNotes returns the records' other-load notes, by side.
func otherLoadNotes(recs []results.Record) map[string][]string {
	out := map[string][]string{}
	for _, r := range recs {
		for _, n := range r.Notes {
			if strings.HasPrefix(n, "other load on the machine") {
				out[r.Side] = append(out[r.Side], r.Name+": "+n)
			}
		}
	}
	return out
}

// TestVersusBusyServerIsNotOtherLoad: an interleaved run against two
// external servers, each given by its pid, where side b's server keeps a
// CPU busy in its own process, also while side a is measured. That is
// the run's own load: no case notes other load on the machine. A
// process that burns as much CPU beside them, not given as a server, is
// other load, and every case notes it.
//
// It does not run in parallel with this package's other tests: the
// servers and peers they start are other load to this run, as they
// would be to a user's.
func TestVersusBusyServerIsNotOtherLoad(t *testing.T) {
	layout, err := pki.Init(pki.InitOptions{Dir: filepath.Join(t.TempDir(), "pki")})
	if err != nil {
		t.Fatal(err)
	}
	id := layout.ServerCerts[pki.ECDSAP256] + "," + layout.ServerKeys[pki.ECDSAP256]
	serve := func(how string) (string, int) {
		cmd, out, stderr := spinningProcess(t, how, "serve", "--listen", "127.0.0.1:0", "--identity", id)
		return listeningAddr(t, out, stderr), cmd.Process.Pid
	}
	run := func(a, b string, pa, pb int) []results.Record {
		_, stderr, recs, err := runVersus(t, "--target", a, "--versus", b, "--ca", layout.RootCert, "--sni", "localhost",
			"--server-pid", strconv.Itoa(pa), "--versus-pid", strconv.Itoa(pb),
			"--tls", "1.3", "--resume", "off,on", "--concurrency", "2", "--handshakes", "32", "--iterations", "6", "--warmup", "1")
		if err != nil {
			t.Fatalf("run: %v\n%s", err, stderr)
		}
		checkSides(t, recs, 2, b, true, results.SideA, results.SideB)
		return recs
	}
	addrA, pidA := serve("")
	addrB, pidB := serve("serve")
	// Other engineers' work on a shared machine is other load too: a
	// run without the note shows the busy server is not counted as
	// such, and with it counted, every run would have it.
	var notes map[string][]string
	for range 3 {
		if notes = otherLoadNotes(run(addrA, addrB, pidA, pidB)); len(notes) == 0 {
			break
		}
	}
	if len(notes) > 0 {
		t.Errorf("side b's busy server counted as other load, in each of 3 runs; the last:\n%s", strings.Join(append(notes["a"], notes["b"]...), "\n"))
	}

	addrC, pidC := serve("")
	spinningProcess(t, "alone")
	recs := run(addrA, addrC, pidA, pidC)
	notes = otherLoadNotes(recs)
	if len(notes["a"]) != 2 || len(notes["b"]) != 2 {
		t.Errorf("a process burning a CPU beside the servers: other-load notes %v, want one on every case of both sides", notes)
	}
}
