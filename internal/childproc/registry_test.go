package childproc_test

import (
	"testing"

	"github.com/tlsbench/tlsbench/internal/childproc"
)

// TestChildArgs: the arguments Start gives a child, in each spelling the
// CLI's flag parsing accepts, start one; others do not.
func TestChildArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		command string
		fd      int
		ok      bool
	}{
		{[]string{"serve", "--control-fd", "3"}, "serve", 3, true},
		{[]string{"proxy", "-control-fd", "3"}, "proxy", 3, true},
		{[]string{"serve", "--control-fd=4"}, "serve", 4, true},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--control-fd", "3"}, "serve", 3, true},
		{[]string{"serve"}, "", 0, false},
		{[]string{"serve", "--control-fd"}, "serve", 0, false},
		{[]string{"serve", "--control-fd", "x"}, "serve", 0, false},
		{[]string{"serve", "--control-fd=-1"}, "serve", -1, false},
		{[]string{"serve", "control-fd", "3"}, "", 0, false},
		{[]string{"--control-fd", "3"}, "", 0, false},
		{[]string{"-test.run=TestX"}, "", 0, false},
		{nil, "", 0, false},
	}
	for _, tt := range tests {
		command, fd, ok := childproc.ChildArgs(tt.args)
		if ok != tt.ok || ok && (command != tt.command || fd != tt.fd) {
			t.Errorf("ChildArgs(%q) = %q, %d, %v; want %q, %d, %v", tt.args, command, fd, ok, tt.command, tt.fd, tt.ok)
		}
	}
}
