//go:build unix

package peers

import (
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a new process group whose id is its pid,
// so that the peer and the processes it forks (nginx workers) can be
// signalled together, and nothing else with them.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// terminateGroup sends SIGTERM to p's process group (nginx: fast
// shutdown of master and workers).
func terminateGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGTERM) }

// killGroup sends SIGKILL to p's process group.
func killGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }
