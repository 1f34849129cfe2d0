//go:build !unix

package extserver

import "os/exec"

// ownGroup has no process groups to use here.
func ownGroup(*exec.Cmd) {}

// signalGroup can only kill the command's own process here.
func signalGroup(cmd *exec.Cmd, _ bool) { cmd.Process.Kill() }
