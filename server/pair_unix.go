//go:build unix

package server

import (
	"fmt"
	"os"
	"syscall"
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

// childProcAttr puts the child server in a process group of its own.
func childProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
