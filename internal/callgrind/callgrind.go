package callgrind

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// outEnv names, in the counted process's environment, the prefix of the
// files callgrind dumps its counts to (see Command).
const outEnv = "TLSBENCH_CALLGRIND_OUT"

// outPrefix is outEnv's value, taken at start and removed from the
// environment, which the process's own children do not share.
var outPrefix = takeEnv(outEnv)

// A counted process, server or client, keeps signals away from itself
// from the start (quietSignals).
func init() {
	if outPrefix != "" {
		quietSignals()
	}
}

// takeEnv returns variable key and removes it from the environment.
func takeEnv(key string) string {
	v := os.Getenv(key)
	os.Unsetenv(key)
	return v
}

// Client requests (valgrind.h, callgrind.h).
const (
	reqRunningOnValgrind = 0x1001
	reqDumpStats         = 'C'<<24 | 'T'<<16 // VG_USERREQ_TOOL_BASE('C','T')
	reqToggleCollect     = reqDumpStats + 2
)

// ErrNoValgrind is Command's error where valgrind cannot be run.
var ErrNoValgrind = errors.New("counting instructions needs valgrind (with its callgrind tool) on the PATH, on amd64 Linux")

// Available reports whether Command can run a program under callgrind:
// nil, or ErrNoValgrind.
func Available() error {
	if !supported {
		return ErrNoValgrind
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		return ErrNoValgrind
	}
	return nil
}

// Command is the command line that runs program path with args under
// callgrind, its dumps going to files in dir, and what to add to its
// environment (it is a Go program: asynchronous preemption off).
func Command(dir, path string, args []string) (exe string, argv, env []string, err error) {
	if err := Available(); err != nil {
		return "", nil, nil, err
	}
	exe, _ = exec.LookPath("valgrind")
	out := filepath.Join(dir, "callgrind.out")
	argv = append([]string{
		"--tool=callgrind", "-q", "--vgdb=no", "--dump-line=no",
		"--callgrind-out-file=" + out + ".%p", path,
	}, args...)
	return exe, argv, append(countedEnv(), outEnv+"="+out), nil
}

// countedEnv is the environment of a Go program counted under
// callgrind, where this process's environment does not say otherwise:
//
//   - asyncpreemptoff=1 in GODEBUG: valgrind does not follow the signals
//     of asynchronous preemption;
//   - GOMAXPROCS=1: callgrind runs one thread at a time anyway, and more
//     Ps only add threads that spin looking for work, a count that
//     varies with timing;
//   - GOGC=off with GOMEMLIMIT=1GiB: no collection until the heap
//     reaches 1 GiB. A cycle of the collector costs about as much as one
//     or two handshakes, and whether an iteration holds one depends on
//     where the cycles fall: measured at 50 handshakes an iteration,
//     iterations with one counted 3% more than those without. The count
//     is then the work of the handshakes without the collection of
//     their garbage (allocations are measured apart).
func countedEnv() []string {
	godebug := "asyncpreemptoff=1"
	if g := os.Getenv("GODEBUG"); g != "" {
		godebug = g + "," + godebug
	}
	env := []string{"GODEBUG=" + godebug}
	for _, kv := range []string{"GOMAXPROCS=1", "GOGC=off", "GOMEMLIMIT=1GiB"} {
		if k, _, _ := strings.Cut(kv, "="); os.Getenv(k) == "" {
			env = append(env, kv)
		}
	}
	return env
}

// Counter is the count of the instructions this process has executed,
// when it runs under callgrind by Command.
type Counter struct {
	mu    sync.Mutex
	total int64
	err   error
}

// Read takes a reading of the count and gives it to answer (nil when the
// process is not counted), leaving the reading and answer's work out of
// the count: from its start to answer's return, the calling goroutine
// keeps its thread and that thread's collection is off (callgrind's
// collection state is per thread; the other threads, the handshakes',
// are counted as ever). The count between two readings is then the work
// between them alone, the same whatever the answer costs: otherwise an
// answer that encodes histograms adds about 1.2 million instructions a
// reading, varying with what it encodes, and a per-handshake figure that
// depends on the handshakes per reading.
func (c *Counter) Read(answer func(instructions *int64) error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if underCallgrind() {
		request(&[6]uintptr{reqToggleCollect})
		defer request(&[6]uintptr{reqToggleCollect})
	}
	n, ok := c.Instructions()
	if !ok {
		return answer(nil)
	}
	return answer(&n)
}

// Instructions returns the instructions this process has executed since
// it started (the count of each reading included), false when it is not
// counted: not run by Command, or a dump could not be read, after which
// it never is again (a count with a hole is not one). Read leaves its
// own reading out of the count.
func (c *Counter) Instructions() (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil || !underCallgrind() {
		return 0, false
	}
	request(&[6]uintptr{reqDumpStats})
	n, err := readDumps(fmt.Sprintf("%s.%d.", outPrefix, os.Getpid()))
	if err != nil {
		c.err = err
		return 0, false
	}
	c.total += n
	return c.total, true
}

// underCallgrind reports whether this process runs under callgrind by
// Command: its dump files named, and valgrind answering.
func underCallgrind() bool {
	return outPrefix != "" && request(&[6]uintptr{reqRunningOnValgrind}) != 0
}

// readDumps adds up the counts of the dump files named prefix followed
// by their number, and removes them.
func readDumps(prefix string) (int64, error) {
	names, err := filepath.Glob(prefix + "*")
	if err != nil || len(names) == 0 {
		return 0, fmt.Errorf("callgrind wrote no dump at %s*", prefix)
	}
	var sum int64
	for _, name := range names {
		n, err := dumpTotal(name)
		if err != nil {
			return 0, err
		}
		sum += n
		os.Remove(name)
	}
	return sum, nil
}

// dumpTotal reads the count of a dump: its header's "summary:" line,
// the instructions (its only event) since the dump before.
func dumpTotal(name string) (int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for i := 0; i < 64 && sc.Scan(); i++ {
		if v, ok := strings.CutPrefix(sc.Text(), "summary:"); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("%s: no summary line in its header", name)
}
