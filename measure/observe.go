package measure

import (
	"time"

	"github.com/tlsbench/tlsbench/internal/counts"

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
	return ServerSnapshot{HasCPU: true, CPU: cpu, CPUTick: usage.ProcTick}, nil
}

// ServerPID implements ServerProcess: the observed process's id, whose
// CPUs the case watches.
func (o ProcessCPU) ServerPID() int { return o.PID }

// ProxyObserver reports what a proxy between the client and the server
// counted (a bumping proxy the client connects through with CONNECT).
// Like the server, it is read at every iteration boundary, so that its
// figures cover the kept iterations only.
type ProxyObserver interface {
	Snapshot() (ProxySnapshot, error)
}

// ProxySnapshot is the proxy's view at one moment. Fields the proxy
// cannot report are left zero with their Has flag false.
type ProxySnapshot struct {
	HasCounts bool
	// ClientHandshakes and ClientResumed count the client-leg
	// handshakes; OriginHandshakes and OriginResumed the proxy's own to
	// the origin.
	ClientHandshakes, ClientResumed int64
	OriginHandshakes, OriginResumed int64
	Mints, MintHits                 int64
	UserSpaceBytes                  int64
	// Relay counts connections by leg and relay mode
	// ("client:splice", "origin:user").
	Relay map[string]int64
	// Failures counts the proxy's failures by kind.
	Failures map[string]int64
	// Fallbacks counts the legs its kernel TLS (auto) left in user
	// space, by leg and reason ("client:unsupported", "origin:error").
	Fallbacks map[string]int64
	HasCPU    bool
	CPU       time.Duration
	// CPUTick is the resolution of CPU when it is coarse (a reading
	// from /proc); 0 for one to the microsecond.
	CPUTick time.Duration
}

// ProxyProcess is a ProxyObserver that knows the proxy's process id: a
// case then watches the CPUs it may run on too.
type ProxyProcess interface {
	ProxyPID() int
}

// ProxyCPU observes a local proxy process (and its descendants: Squid's
// helpers) by PID: CPU time only, from /proc.
type ProxyCPU struct{ PID int }

// Snapshot implements ProxyObserver.
func (o ProxyCPU) Snapshot() (ProxySnapshot, error) {
	cpu, err := usage.ProcessTreeCPU(o.PID)
	if err != nil {
		return ProxySnapshot{}, err
	}
	return ProxySnapshot{HasCPU: true, CPU: cpu, CPUTick: usage.ProcTick}, nil
}

// ProxyPID implements ProxyProcess.
func (o ProxyCPU) ProxyPID() int { return o.PID }

// sub is the proxy's counts between earlier and s.
func (s ProxySnapshot) sub(earlier ProxySnapshot) ProxySnapshot {
	d := s
	d.ClientHandshakes -= earlier.ClientHandshakes
	d.ClientResumed -= earlier.ClientResumed
	d.OriginHandshakes -= earlier.OriginHandshakes
	d.OriginResumed -= earlier.OriginResumed
	d.Mints -= earlier.Mints
	d.MintHits -= earlier.MintHits
	d.UserSpaceBytes -= earlier.UserSpaceBytes
	d.CPU -= earlier.CPU
	d.Relay = counts.Sub(s.Relay, earlier.Relay)
	d.Failures = counts.Sub(s.Failures, earlier.Failures)
	return d
}

// Add sums two spans of proxy counts.
func (s ProxySnapshot) Add(o ProxySnapshot) ProxySnapshot {
	d := o
	d.ClientHandshakes += s.ClientHandshakes
	d.ClientResumed += s.ClientResumed
	d.OriginHandshakes += s.OriginHandshakes
	d.OriginResumed += s.OriginResumed
	d.Mints += s.Mints
	d.MintHits += s.MintHits
	d.UserSpaceBytes += s.UserSpaceBytes
	d.CPU += s.CPU
	d.Relay = addCounts(s.Relay, o.Relay)
	d.Failures = addCounts(s.Failures, o.Failures)
	return d
}

// proxyDelta returns the proxy's counts between earlier and now, with
// the figures that went backwards marked and cleared.
func proxyDelta(now, earlier ProxySnapshot) (ProxySnapshot, backwards) {
	d := now.sub(earlier)
	var b backwards
	if d.HasCPU && d.CPU < 0 {
		b.proxyCPU, d.HasCPU, d.CPU = true, false, 0
	}
	if d.HasCounts && (d.ClientHandshakes < 0 || d.ClientResumed < 0 || d.OriginHandshakes < 0 || d.OriginResumed < 0 ||
		d.Mints < 0 || d.MintHits < 0 || d.UserSpaceBytes < 0 || anyNegative(d.Relay) || anyNegative(d.Failures)) {
		b.proxyCounts, d.HasCounts = true, false
	}
	return d, b
}
