package procid_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

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
