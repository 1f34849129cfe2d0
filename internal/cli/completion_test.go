package cli_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/cli"
)

// completionScript writes tlsbench completion SHELL to a file.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	var out bytes.Buffer
	if err := cli.Run(context.Background(), []string{"completion", shell}, &out, io.Discard); err != nil {
		t.Fatalf("completion %s: %v", shell, err)
	}
	path := filepath.Join(t.TempDir(), "tlsbench."+shell)
	if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Each script is valid in its shell (scripts/packages.txt installs zsh
// and fish; a shell missing here is skipped).
func TestCompletionScriptsParse(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			if _, err := exec.LookPath(shell); err != nil {
				t.Skipf("%s is not installed", shell)
			}
			script := completionScript(t, shell)
			if out, err := exec.Command(shell, "-n", script).CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v\n%s", shell, err, out)
			}
		})
	}
}

// Sourced in bash, the script completes a flag of run, the values of a
// list after a comma, and a command.
func TestBashCompletion(t *testing.T) {
	t.Parallel()
	script := completionScript(t, "bash")
	for _, tc := range []struct{ words, want string }{
		{"tlsbench run --transpo", "--transport"},
		{"tlsbench run --tls ", "1.2 1.3"},
		{"tlsbench run --resume off,", "off,off off,on"},
		{"tlsbench run --session-store st", "stateful"},
		{"tlsbench serve --log-level d", "debug"},
		{"tlsbench comp", "compare completion"},
	} {
		words := strings.Split(tc.words, " ")
		prog := `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _tlsbench; echo "${COMPREPLY[*]}"`
		out, err := exec.Command("bash", append([]string{"-c", prog, "bash", script}, words...)...).CombinedOutput()
		if got := strings.TrimSpace(string(out)); err != nil || got != tc.want {
			t.Errorf("%q completes to %q (%v), want %q", tc.words, got, err, tc.want)
		}
	}
}

func TestCompletionRefusesUnknownShell(t *testing.T) {
	t.Parallel()
	err := cli.Run(context.Background(), []string{"completion", "tcsh"}, io.Discard, io.Discard)
	if cli.ExitCode(err) != cli.ExitUsage || !strings.Contains(err.Error(), "want bash, zsh or fish") {
		t.Errorf("completion tcsh: %v", err)
	}
}
