package callgrind

import (
	"crypto/sha256"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
)

// childEnv marks the test binary re-run under callgrind.
const childEnv = "TLSBENCH_TEST_CALLGRIND_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		countedChild()
		return
	}
	os.Exit(m.Run())
}

// work hashes n times.
func work(n int) {
	x := []byte("tlsbench")
	for range n {
		s := sha256.Sum256(x)
		x = s[:]
	}
}

// countedChild reads its count after 5,000, 10,000 and 15,000 more
// hashes and prints the readings.
func countedChild() {
	var c Counter
	var got []int64
	for _, n := range []int{0, 5000, 10000, 15000} {
		work(n)
		v, ok := c.Instructions()
		if !ok {
			os.Exit(3)
		}
		got = append(got, v)
	}
	json.NewEncoder(os.Stdout).Encode(got)
}

// TestNotCounted: a process not under callgrind has no count.
func TestNotCounted(t *testing.T) {
	t.Parallel()
	var c Counter
	if v, ok := c.Instructions(); ok {
		t.Errorf("a process not under callgrind counted %d instructions", v)
	}
}

// TestCountsUnderCallgrind: under callgrind, the counts between readings
// grow with the work between them, each 5,000 hashes more the same
// number of instructions more (within 2%: the readings' own cost is the
// same each time, the runtime's background work about 30,000
// instructions from one to the next), and the readings' files are
// removed.
func TestCountsUnderCallgrind(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the test binary under valgrind")
	}
	if err := Available(); err != nil {
		t.Skip("valgrind is not installed")
	}
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	exe, argv, env, err := Command(dir, self, nil)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, argv...)
	cmd.Env = append(append(os.Environ(), env...), childEnv+"=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("under callgrind: %v; %s", err, out)
	}
	var got []int64
	if err := json.Unmarshal(out, &got); err != nil || len(got) != 4 {
		t.Fatalf("readings %q: %v", out, err)
	}
	one, two, three := got[1]-got[0], got[2]-got[1], got[3]-got[2]
	if step, again := two-one, three-two; one <= 0 || step <= 0 || r(again, step) < 0.98 || r(again, step) > 1.02 {
		t.Errorf("readings %v: %d, %d and %d instructions for 5,000, 10,000 and 15,000 hashes: want a step the same each time", got, one, two, three)
	}
	left, _ := os.ReadDir(dir)
	if len(left) > 1 {
		t.Errorf("%d files left in the dump directory, want the final dump alone", len(left))
	}
}

func r(a, b int64) float64 { return float64(a) / float64(b) }
