package loadgen

import (
	"github.com/tlsbench/tlsbench/internal/usage"
)

// ServerProcess is a ServerObserver that knows the process id of the
// server it observes: a case then watches the CPUs that process may run
// on as well as its own (the machine's load in the record). Observers of
// a server in this process, or of a remote one, do not implement it.
type ServerProcess interface {
	ServerPID() int
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

// ServerPID implements ServerProcess: the observed process's id, whose
// CPUs the case watches.
func (o ProcessCPU) ServerPID() int { return o.PID }
