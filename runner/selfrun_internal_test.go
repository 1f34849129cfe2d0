package runner

import (
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/proxy"
	"github.com/tlsbench/tlsbench/server"
)

// TestUndispatchedNamesTheChild: the explanation names the service the
// program was re-run as, and both fixes.
func TestUndispatchedNamesTheChild(t *testing.T) {
	for command, role := range map[string]string{server.ChildCommand: "as the server ", proxy.ChildCommand: "as the proxy "} {
		msg := undispatched(command)
		for _, want := range []string{role, "runner.RunChildIfAsked()", "Plan.Executable"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %q does not say %q", command, msg, want)
			}
		}
	}
}
