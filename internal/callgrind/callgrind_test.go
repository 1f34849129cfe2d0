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
	if InCountedRun() {
		countedRun(os.Args[1:])
		return
	}
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
// hashes and prints the readings; with childEnv "read", it reads with
// Read, each answer hashing 20,000 times (as much as all the work
// between the readings), which the count must leave out.
func countedChild() {
	var c Counter
	var got []int64
	for _, n := range []int{0, 5000, 10000, 15000} {
		work(n)
		var v int64
		ok := false
		if os.Getenv(childEnv) == "read" {
			c.Read(func(n *int64) error {
				if n != nil {
					v, ok = *n, true
				}
				work(20000)
				return nil
			})
		} else {
			v, ok = c.Instructions()
		}
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
	t.Parallel()
	one, step, _ := countedSteps(t, "1")
	if one <= 0 || step <= 0 {
		t.Errorf("%d and %d instructions for 5,000 and 5,000 more hashes", one, step)
	}
}

// TestReadLeavesItselfOut: counted with Read, whose answers hash 20,000
// times each, the counts between readings are those of the work between
// them: the step from 5,000 hashes to 10,000 is the same as without
// Read, within 2%, and the first span is not inflated either (with the
// answers counted, it was seen at 5 times the second).
func TestReadLeavesItselfOut(t *testing.T) {
	t.Parallel()
	_, plain, _ := countedSteps(t, "1")
	one, step, got := countedSteps(t, "read")
	if r(step, plain) < 0.98 || r(step, plain) > 1.02 {
		t.Errorf("readings %v with Read: a step of %d instructions for 5,000 hashes, %d without Read: the answers' 20,000 hashes were counted", got, step, plain)
	}
	if r(one, step) > 1.1 {
		t.Errorf("readings %v with Read: %d instructions for the first 5,000 hashes, the second 5,000 %d", got, one, step)
	}
}

// countedSteps runs the test binary under callgrind as countedChild
// (mode its childEnv) and returns the count for the first 5,000 hashes,
// the step from 5,000 to 10,000 (checked to repeat from 10,000 to
// 15,000) and the readings.
func countedSteps(t *testing.T, mode string) (one, step int64, got []int64) {
	t.Helper()
	needValgrind(t)
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
	cmd.Env = append(append(os.Environ(), env...), childEnv+"="+mode)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("under callgrind: %v; %s", err, out)
	}
	if err := json.Unmarshal(out, &got); err != nil || len(got) != 4 {
		t.Fatalf("readings %q: %v", out, err)
	}
	one, two, three := got[1]-got[0], got[2]-got[1], got[3]-got[2]
	step, again := two-one, three-two
	if r(again, step) < 0.98 || r(again, step) > 1.02 {
		t.Errorf("readings %v: %d, %d and %d instructions for 5,000, 10,000 and 15,000 hashes: want a step the same each time", got, one, two, three)
	}
	left, _ := os.ReadDir(dir)
	if len(left) > 1 {
		t.Errorf("%d files left in the dump directory, want the final dump alone", len(left))
	}
	return one, step, got
}

func r(a, b int64) float64 { return float64(a) / float64(b) }

// needValgrind skips a test that runs a program under valgrind: under
// -short, or where valgrind is missing, which fails the test under CI
// (scripts/test.sh installs it).
func needValgrind(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: runs the test binary under valgrind")
	}
	if err := Available(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v, and CI is set: install valgrind", err)
		}
		t.Skip(err)
	}
}
