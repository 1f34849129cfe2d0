package extserver

import (
	"fmt"
	"net"
	"strconv"

	"github.com/tlsbench/tlsbench/internal/hostname"
	"github.com/tlsbench/tlsbench/internal/usage"
	"github.com/tlsbench/tlsbench/measure"
)

// Attach returns the observer of server process pid, the one serving
// addr: its process tree's CPU. It refuses a process it cannot read, and
// one whose CPU would be reported as the server's but is not the server's
// (a pid of the wrong program gave 0 µs per handshake): tlsbench itself
// or one of its ancestors, whose tree holds tlsbench's own CPU, or a
// process that, with its children, does not listen on addr's port. Only
// a server on this machine's loopback can be checked for its port; where
// that check cannot run (another user's process), notice says so and
// the process is taken at its word.
func Attach(pid int, addr string) (obs measure.ProcessCPU, notice string, err error) {
	obs = measure.ProcessCPU{PID: pid}
	if _, err := obs.Snapshot(); err != nil {
		return obs, "", err
	}
	if self, err := usage.IsAncestorOfSelf(pid); err == nil && self {
		return obs, "", fmt.Errorf("that process is tlsbench itself or one of its ancestors, whose CPU includes tlsbench's own: give the pid of the server (e.g. the nginx master)")
	}
	if !hostname.IsLoopback(addr) {
		return obs, "", nil
	}
	_, portText, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portText)
	owns, err := usage.ListensOn(pid, port)
	switch {
	case err != nil:
		return obs, fmt.Sprintf("could not check that process %d serves %s: %v", pid, addr, err), nil
	case !owns:
		return obs, "", fmt.Errorf("neither that process nor its children listen on port %d of %s: give the pid of the server that does, or leave it out", port, addr)
	}
	return obs, "", nil
}
