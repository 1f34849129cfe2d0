//go:build !unix

package childproc

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

func controlPair() (parent, child *os.File, err error) {
	return nil, nil, fmt.Errorf("%w on %s", ErrUnsupported, runtime.GOOS)
}

func childProcAttr() *syscall.SysProcAttr { return nil }

// exitSignal is "": no signals here.
func exitSignal(*exec.ExitError) string { return "" }

// killGroup kills the child (no process groups here).
func killGroup(p *os.Process) { p.Kill() }
