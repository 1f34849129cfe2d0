//go:build !unix

package callgrind

import "os/exec"

// ownGroup does nothing where no run is counted (Available says so).
func ownGroup(cmd *exec.Cmd) {}

// killGroup kills the counted run alone.
func killGroup(cmd *exec.Cmd) { cmd.Process.Kill() }
