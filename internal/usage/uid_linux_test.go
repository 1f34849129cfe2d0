package usage

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// TestEffectiveUID reads this process's user, and, when this runs as
// root, a child's that runs as nobody (65534), as an nginx worker does.
func TestEffectiveUID(t *testing.T) {
	if uid, err := EffectiveUID(os.Getpid()); err != nil || uid != os.Geteuid() {
		t.Fatalf("EffectiveUID(self) = %d, %v; want %d", uid, err, os.Geteuid())
	}
	if _, err := EffectiveUID(1 << 30); err == nil {
		t.Error("EffectiveUID of no process: no error")
	}
	if os.Geteuid() != 0 {
		return // a child under another user needs root
	}
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if uid, err := EffectiveUID(cmd.Process.Pid); err != nil || uid != 65534 {
		t.Errorf("EffectiveUID(child as nobody) = %d, %v; want 65534", uid, err)
	}
}
