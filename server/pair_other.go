//go:build !unix

package server

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
)

func controlPair() (parent, child *os.File, err error) {
	return nil, nil, fmt.Errorf("a child server process is not supported on %s; use --transport memory or --target", runtime.GOOS)
}

func childProcAttr() *syscall.SysProcAttr { return nil }
