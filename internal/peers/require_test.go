package peers_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/peers"
)

// requireChildEnv names the tool TestRequireChild asks for; the test binary
// is run again with it set by TestRequire, and the test skips without it.
const requireChildEnv = "TLSBENCH_PEERS_REQUIRE_CHILD"

// TestRequireChild is the test TestRequire runs in a child process: it
// requires the tool named in requireChildEnv and says so when it got it.
func TestRequireChild(t *testing.T) {
	tool := os.Getenv(requireChildEnv)
	if tool == "" {
		t.Skip("run by TestRequire in a child process")
	}
	peers.Require(t, tool)
	t.Log("REQUIRE-RAN")
}

// TestRequire: what Require does with each of -short, CI and the tool
// present or missing. -short skips even a tool that is there (the inner
// loop runs without real peers); without -short a missing tool skips, or
// fails under CI.
func TestRequire(t *testing.T) {
	t.Parallel()
	const missing = "tlsbench-no-such-peer"
	for _, tc := range []struct {
		name  string
		tool  string
		short bool
		ci    bool
		want  string // PASS, SKIP or FAIL
	}{
		{"present", "sh", false, true, "PASS"},
		{"present short", "sh", true, false, "SKIP"},
		{"present short CI", "sh", true, true, "SKIP"},
		{"missing", missing, false, false, "SKIP"},
		{"missing CI", missing, false, true, "FAIL"},
		{"missing short CI", missing, true, true, "SKIP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"-test.run", "^TestRequireChild$", "-test.v"}
			if tc.short {
				args = append(args, "-test.short")
			}
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = []string{requireChildEnv + "=" + tc.tool}
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "CI=") {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			if tc.ci {
				cmd.Env = append(cmd.Env, "CI=1")
			}
			out, _ := cmd.CombinedOutput()
			got := string(out)
			if !strings.Contains(got, "--- "+tc.want+": TestRequireChild") {
				t.Errorf("want %s:\n%s", tc.want, got)
			}
			if ran := strings.Contains(got, "REQUIRE-RAN"); ran != (tc.want == "PASS") {
				t.Errorf("the test body ran: %v, want %v:\n%s", ran, tc.want == "PASS", got)
			}
		})
	}
}
