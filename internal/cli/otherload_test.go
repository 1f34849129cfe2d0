package cli_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/usage"
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
	return selfProcess(t, []string{spinEnv + "=" + how, "TMPDIR=" + t.TempDir()}, args...)
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

// busyServerAsOtherLoad returns the other-load notes of the records
// that count side b's busy server as other load: those whose other
// processes' share reaches half the busy server's share while side a
// of the same case was measured (extra.other_sides_cpu_share). A
// quiet run can still see short bursts of other work in one case (a
// test run's compiler or linker, a saturated machine's accounting
// that jiffies and rusage sample differently), worth a note of their
// own; what must not happen is the busy server's CPU showing up
// there, which would make the share at least the busy server's.
func busyServerAsOtherLoad(recs []results.Record) []string {
	busy := map[string]float64{}
	for _, r := range recs {
		if r.Side == results.SideA {
			busy[r.Name] = r.Extra["other_sides_cpu_share"]
		}
	}
	var out []string
	for _, r := range recs {
		if r.OtherCPUShare == nil || *r.OtherCPUShare < busy[r.Name]/2 {
			continue
		}
		for _, n := range r.Notes {
			if strings.HasPrefix(n, "other load on the machine") {
				out = append(out, fmt.Sprintf("%s side %s (busy server's share %.0f%%): %s", r.Name, r.Side, 100*busy[r.Name], n))
			}
		}
	}
	return out
}

// otherLoadDuring runs f and returns the share of this process's CPUs
// that anything but this process and the processes pids (with their
// children) took meanwhile: the machine's other load over f, judged from
// outside the run that f makes.
func otherLoadDuring(t *testing.T, pids []int, f func()) float64 {
	t.Helper()
	cpus, err := usage.AllowedCPUs(0)
	if err != nil {
		t.Fatal(err)
	}
	ours := func() time.Duration {
		d := usage.SelfCPU()
		for _, pid := range pids {
			c, err := usage.ProcessTreeCPU(pid)
			if err != nil {
				t.Fatal(err)
			}
			d += c
		}
		return d
	}
	before, err := usage.Machine(cpus)
	if err != nil {
		t.Fatal(err)
	}
	oursBefore := ours()
	f()
	oursAfter := ours()
	after, err := usage.Machine(cpus)
	if err != nil {
		t.Fatal(err)
	}
	m := after.Sub(before)
	if m.Total <= 0 {
		return 1
	}
	return max(float64(m.Busy-(oursAfter-oursBefore))/float64(m.Total), 0)
}

// TestVersusBusyServerIsNotOtherLoad: an interleaved run against two
// external servers, each given by its pid, where side b's server keeps a
// CPU busy in its own process, also while side a is measured (as a JVM's
// compiler and collector work between its rounds). That is the run's own
// load: side a's records count it as the other side's
// (extra.other_sides_cpu_share), and on a quiet machine no case counts
// it as other load. A process that burns as much CPU
// beside two quiet servers, not given as a server, is other load, and
// every case notes it.
//
// The machine may be shared, and other work on it (other packages'
// tests among them) is other load too: the notes are judged only of
// runs during which everything but this test process and the two
// servers took less than half the note's threshold, measured from
// outside the run, tried up to three times. It does not run in parallel
// with this package's other tests, whose servers and peers are other
// load to it.
func TestVersusBusyServerIsNotOtherLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a timing test: other load judged over interleaved runs")
	}
	layout, err := pki.Init(pki.InitOptions{Dir: filepath.Join(t.TempDir(), "pki")})
	if err != nil {
		t.Fatal(err)
	}
	id := layout.ServerCerts[pki.ECDSAP256] + "," + layout.ServerKeys[pki.ECDSAP256]
	serve := func(how string) (string, int) {
		cmd, out, stderr := spinningProcess(t, how, "serve", "--listen", "127.0.0.1:0", "--identity", id)
		return listeningAddr(t, out, stderr), cmd.Process.Pid
	}
	// Spans of a few hundred milliseconds each, so that the clock
	// ticks in which /proc counts a process's CPU time are a small
	// part of them: 96 handshakes, or a third as many under the race
	// detector, which makes each of them (both ends are this test
	// binary) several times dearer.
	handshakes := "96"
	if raceDetector {
		handshakes = "32"
	}
	run := func(a, b string, pa, pb int) []results.Record {
		_, stderr, recs, err := runVersus(t, "--target", a, "--versus", b, "--ca", layout.RootCert, "--sni", "localhost",
			"--server-pid", strconv.Itoa(pa), "--versus-pid", strconv.Itoa(pb),
			"--tls", "1.3", "--resume", "off,on", "--concurrency", "2", "--handshakes", handshakes, "--iterations", "6", "--warmup", "1")
		if err != nil {
			t.Fatalf("run: %v\n%s", err, stderr)
		}
		checkSides(t, recs, 2, b, true, results.SideA, results.SideB)
		return recs
	}
	addrA, pidA := serve("")
	addrB, pidB := serve("serve") // busy in its own process
	judged, passed := 0, false
	var why []string
	for range 3 {
		var recs []results.Record
		quiet := otherLoadDuring(t, []int{pidA, pidB}, func() { recs = run(addrA, addrB, pidA, pidB) }) < usage.OtherShare/2
		for _, r := range recs {
			// The spinning loop has a CPU of two, or its share of a
			// loaded machine's: some of their time, at least.
			if share, ok := r.Extra["other_sides_cpu_share"]; r.Side == results.SideA && (!ok || share < 0.02) {
				t.Fatalf("%s side a: other sides' CPU share %v (present %v): side b's busy server is not counted as the run's", r.Name, share, ok)
			}
		}
		if !quiet {
			continue
		}
		judged++
		why = busyServerAsOtherLoad(recs)
		if passed = len(why) == 0; passed {
			break
		}
	}
	switch {
	case judged == 0:
		t.Log("other processes were busy during every run: whether a case notes other load was not judged")
	case !passed:
		t.Errorf("side b's busy server counted as other load in each of %d runs on a quiet machine; the last:\n%s", judged, strings.Join(why, "\n"))
	}

	addrC, pidC := serve("")
	spinningProcess(t, "alone")
	if notes := otherLoadNotes(run(addrA, addrC, pidA, pidC)); len(notes["a"]) != 2 || len(notes["b"]) != 2 {
		t.Errorf("a process burning a CPU beside the servers: other-load notes %v, want one on every case of both sides", notes)
	}
}
