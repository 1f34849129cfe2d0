//go:build !unix

package server

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

func controlPair() (parent, child *os.File, err error) {
	return nil, nil, fmt.Errorf("a child server process is not supported on %s; use {Transports} memory or {Target.Addr}", runtime.GOOS)
}

func childProcAttr() *syscall.SysProcAttr { return nil }

// exitSignal is "": no signals here.
func exitSignal(*exec.ExitError) string { return "" }
