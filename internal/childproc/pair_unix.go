//go:build unix

package childproc

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// controlPair returns the two ends of a connected Unix socketpair: the
// parent's and the one the child inherits. Nothing else can reach it.
func controlPair() (parent, child *os.File, err error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("control channel: %w", err)
	}
	syscall.CloseOnExec(fds[0])
	return os.NewFile(uintptr(fds[0]), "control-parent"), os.NewFile(uintptr(fds[1]), "control-child"), nil
}

// childProcAttr puts the child in a process group of its own.
func childProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// exitSignal names the signal that ended the process ("SIGKILL"), or ""
// when it exited by itself.
func exitSignal(exit *exec.ExitError) string {
	ws, ok := exit.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	if name := unix.SignalName(ws.Signal()); name != "" {
		return name
	}
	return fmt.Sprintf("signal %d", int(ws.Signal()))
}

// killGroup kills the child's process group: the child and whatever it
// started, which would otherwise outlive it.
func killGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }
