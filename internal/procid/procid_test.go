package procid_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/procid"
)

func TestIdentifySelf(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("Identify reads /proc, which only Linux has")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	name, version, err := procid.Identify(os.Getpid())
	if err != nil || name != filepath.Base(exe) || version != "" {
		t.Errorf("Identify(self) = %q, %q, %v; want %q, \"\", nil", name, version, err, filepath.Base(exe))
	}
}

func TestIdentifyNoProcess(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("Identify reads /proc, which only Linux has")
	}
	// Past the kernel's largest pid (4194304), so no process has it.
	if _, _, err := procid.Identify(1 << 23); err == nil {
		t.Error("Identify(no such pid) succeeded")
	}
}

func TestFirstLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "", "\n  OpenSSL 3.0\nmore\n": "OpenSSL 3.0", "one": "one"} {
		if got := procid.FirstLine([]byte(in)); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestIdentifyUnderValgrind: a program run under valgrind executes as
// valgrind's tool; Identify names the program, found in its arguments.
func TestIdentifyUnderValgrind(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("Identify reads /proc, which only Linux has")
	}
	valgrind, err := exec.LookPath("valgrind")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("valgrind is not installed (scripts/packages.txt)")
		}
		t.Skip("valgrind is not installed")
	}
	cmd := exec.Command(valgrind, "--tool=none", "-q", "sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// The launcher becomes the tool within moments.
	var name string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if name, _, err = procid.Identify(cmd.Process.Pid); err == nil && name == "sleep" {
			return
		}
	}
	t.Errorf("Identify(sleep under valgrind) = %q, %v; want sleep", name, err)
}
