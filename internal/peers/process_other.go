//go:build !unix

package peers

import (
	"os"
	"os/exec"
)

// ownProcessGroup does nothing where there are no process groups.
func ownProcessGroup(*exec.Cmd) {}

// terminateGroup kills p: without signals there is no polite request.
func terminateGroup(p *os.Process) { p.Kill() }

// killGroup kills p.
func killGroup(p *os.Process) { p.Kill() }
