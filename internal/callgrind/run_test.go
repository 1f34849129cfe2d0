package callgrind

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// countedRun is this test binary run by RunCounted: args[0] says what
// to do, args[1] is where to write what it saw.
func countedRun(args []string) {
	var c Counter
	_, counted := c.Instructions()
	gomaxprocs, set := os.LookupEnv("GOMAXPROCS")
	seen := map[string]any{
		"counted": counted, "procs": runtime.GOMAXPROCS(0), "gomaxprocs": gomaxprocs, "gomaxprocs_set": set,
		"stop_fd_env": os.Getenv(countedRunEnv), "out_env": os.Getenv(outEnv),
	}
	b, _ := json.Marshal(seen)
	os.WriteFile(args[1], b, 0o644)
	switch args[0] {
	case "exit":
		code, _ := strconv.Atoi(args[2])
		os.Exit(code)
	case "wait":
		// Until asked to stop, as a run that a Ctrl-C ends.
		ctx, cancel := StopContext(context.Background())
		defer cancel()
		<-ctx.Done()
		os.Exit(130)
	}
}

// TestRunCounted: the program runs again under callgrind, counted (one
// P), its exit status returned; the environment it gives its own
// children is the one it was given (GOMAXPROCS unset again, and neither
// the stop pipe's number nor the dump prefix left in it).
func TestRunCounted(t *testing.T) {
	needValgrind(t)
	os.Unsetenv("GOMAXPROCS")
	seenFile := filepath.Join(t.TempDir(), "seen.json")
	status, err := RunCounted([]string{"exit", seenFile, "7"})
	if err != nil || status != 7 {
		t.Fatalf("RunCounted = %d, %v; want status 7", status, err)
	}
	var seen struct {
		Counted       bool   `json:"counted"`
		GomaxprocsSet bool   `json:"gomaxprocs_set"`
		Procs         int    `json:"procs"`
		StopFDEnv     string `json:"stop_fd_env"`
		OutEnv        string `json:"out_env"`
	}
	b, err := os.ReadFile(seenFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &seen); err != nil {
		t.Fatal(err)
	}
	if !seen.Counted || seen.Procs != 1 {
		t.Errorf("the counted run saw %s: want it counted, on one P", b)
	}
	if seen.GomaxprocsSet || seen.StopFDEnv != "" || seen.OutEnv != "" {
		t.Errorf("the counted run's environment after start: %s; want GOMAXPROCS unset as it was, and the run's own variables gone", b)
	}
}

// TestRunCountedStopsOnInterrupt: a SIGINT to the process that waits
// for the counted run reaches it as the end of its stop pipe, not as a
// signal: it ends by itself (status 130 here).
func TestRunCountedStopsOnInterrupt(t *testing.T) {
	needValgrind(t)
	seenFile := filepath.Join(t.TempDir(), "seen.json")
	go func() {
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(seenFile); err == nil {
				syscall.Kill(os.Getpid(), syscall.SIGINT)
				return
			}
		}
	}()
	status, err := RunCounted([]string{"wait", seenFile})
	if err != nil || status != 130 {
		t.Fatalf("RunCounted = %d, %v; want status 130, the run's own end", status, err)
	}
}
