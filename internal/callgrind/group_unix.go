//go:build unix

package callgrind

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, out of the
// terminal's reach.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills cmd's process group: the counted run and what it
// started.
func killGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
