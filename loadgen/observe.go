package loadgen

import (
	"time"

	"github.com/tlsbench/tlsbench/internal/usage"
	"github.com/tlsbench/tlsbench/server"
)

// ChildServer observes a built-in server running as a child process: its
// counts, and its CPU time and allocations, which are its own.
type ChildServer struct{ Child *server.Child }

// Snapshot implements ServerObserver.
func (o ChildServer) Snapshot() (ServerSnapshot, error) {
	c, err := o.Child.Counters()
	if err != nil {
		return ServerSnapshot{}, err
	}
	return ServerSnapshot{
		HasCounts: true, Handshakes: c.Handshakes, Resumed: c.Resumed, Failures: c.Failures, Identities: c.Identities,
		KeyDecryptions: c.KeyDecryptions, Declined: c.Declined,
		HasCPU: true, CPU: time.Duration(c.CPUNanos),
		HasAlloc: true, AllocBytes: c.AllocBytes,
	}, nil
}

// ServerPID is the child's process id, whose CPUs the case watches.
func (o ChildServer) ServerPID() int { return o.Child.PID() }

// InProcessServer observes a built-in server in this process: its counts
// only, since its CPU time and allocations are mixed with the client's.
type InProcessServer struct{ Server *server.Server }

// Snapshot implements ServerObserver.
func (o InProcessServer) Snapshot() (ServerSnapshot, error) {
	c := o.Server.Counters()
	return ServerSnapshot{HasCounts: true, Handshakes: c.Handshakes, Resumed: c.Resumed, Failures: c.Failures, Identities: c.Identities, KeyDecryptions: c.KeyDecryptions, Declined: c.Declined}, nil
}

// ProcessCPU observes any local server process (and its descendants) by
// PID: CPU time only, from /proc.
type ProcessCPU struct{ PID int }

// Snapshot implements ServerObserver.
func (o ProcessCPU) Snapshot() (ServerSnapshot, error) {
	cpu, err := usage.ProcessTreeCPU(o.PID)
	if err != nil {
		return ServerSnapshot{}, err
	}
	return ServerSnapshot{HasCPU: true, CPU: cpu}, nil
}

// ServerPID is the observed process's id, whose CPUs the case watches.
func (o ProcessCPU) ServerPID() int { return o.PID }
