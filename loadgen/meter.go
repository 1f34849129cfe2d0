package loadgen

import (
	"cmp"
	"time"

	"github.com/tlsbench/tlsbench/internal/usage"
	"github.com/tlsbench/tlsbench/results"
)

// boundary is what is read at one iteration boundary. Every figure a case
// reports per handshake, per megabyte or per second of CPU is summed from
// the spans between such boundaries of the iterations it keeps, so that an
// iteration cut short (Ctrl-C) or never kept adds nothing, and neither
// does anything the harness does between iterations (progress output,
// asking the server for its counters). Another source read at iteration
// boundaries is one more field here, one line in begin and end, and one
// in span.
type boundary struct {
	self    usage.Snapshot
	srv     ServerSnapshot
	srvErr  error
	machine usage.MachineTimes
	machErr error
}

// span is the cost of one iteration: the difference of its two
// boundaries.
type span struct {
	self usage.Snapshot
	// srv is the server's counts over the iteration; zero when srvErr is
	// set (either read failed).
	srv    ServerSnapshot
	srvErr error
	// machine is what the CPUs that client and server may run on did
	// over the iteration, whoever ran on them; zero when unknown.
	machine usage.MachineTimes
}

// meter reads the boundaries around iterations and sums the spans that
// are kept.
type meter struct {
	server ServerObserver // nil: no server figures
	// cpus are the CPUs the client and the server may run on; nil when
	// the machine's load cannot be read (then machineErr says why).
	cpus       usage.CPUSet
	machineErr error
	start      boundary // of the iteration in progress

	total  span // sum of the kept spans
	kept   int
	srvErr error // the first failure to read the server, if any
}

// newMeter returns a meter for a case against server (nil: none), which
// also watches the CPUs the client and a local server process may run on.
func newMeter(server ServerObserver) *meter {
	m := &meter{server: server}
	m.cpus, m.machineErr = usage.AllowedCPUs(0)
	if p, ok := server.(ServerProcess); ok && m.machineErr == nil {
		var theirs usage.CPUSet
		if theirs, m.machineErr = usage.AllowedCPUs(p.ServerPID()); m.machineErr == nil {
			m.cpus = m.cpus.Union(theirs)
		}
	}
	if m.machineErr != nil {
		m.cpus = nil
	}
	return m
}

// begin reads the boundary before an iteration: the server first, so that
// asking it costs the client's span nothing.
func (m *meter) begin() {
	if m.server != nil {
		m.start.srv, m.start.srvErr = m.server.Snapshot()
	}
	m.start.machine, m.start.machErr = m.readMachine()
	m.start.self = usage.Self()
}

// readMachine reads the times of the watched CPUs.
func (m *meter) readMachine() (usage.MachineTimes, error) {
	if m.cpus == nil {
		return usage.MachineTimes{}, m.machineErr
	}
	return usage.Machine(m.cpus)
}

// end reads the boundary after an iteration (the client first, for the
// same reason) and returns the iteration's span.
func (m *meter) end() span {
	var b boundary
	b.self = usage.Self()
	b.machine, b.machErr = m.readMachine()
	if m.server != nil {
		b.srv, b.srvErr = m.server.Snapshot()
	}
	s := span{self: b.self.Sub(m.start.self)}
	if m.start.machErr == nil && b.machErr == nil {
		s.machine = b.machine.Sub(m.start.machine)
	} else if m.machineErr == nil {
		m.machineErr = cmp.Or(m.start.machErr, b.machErr)
	}
	switch {
	case m.start.srvErr != nil:
		s.srvErr = m.start.srvErr
	case b.srvErr != nil:
		s.srvErr = b.srvErr
	case m.server != nil:
		s.srv = b.srv.sub(m.start.srv)
	}
	return s
}

// keep adds an iteration's span to the case's totals.
func (m *meter) keep(s span) {
	m.kept++
	m.total.self.CPU += s.self.CPU
	m.total.self.AllocBytes += s.self.AllocBytes
	m.total.machine.Busy += s.machine.Busy
	m.total.machine.Total += s.machine.Total
	if s.srvErr != nil && m.srvErr == nil {
		m.srvErr = s.srvErr
	}
	if m.server != nil && s.srvErr == nil {
		m.total.srv = m.total.srv.add(s.srv)
	}
}

// serverTotal returns the server's counts over the kept iterations, or the
// error that made them unknown.
func (m *meter) serverTotal() (ServerSnapshot, error) {
	return m.total.srv, m.srvErr
}

// add sums two spans of server counts.
func (s ServerSnapshot) add(o ServerSnapshot) ServerSnapshot {
	d := o
	d.Handshakes += s.Handshakes
	d.Resumed += s.Resumed
	d.CPU += s.CPU
	d.AllocBytes += s.AllocBytes
	d.KeyDecryptions += s.KeyDecryptions
	d.Failures = addCounts(s.Failures, o.Failures)
	d.Identities = addCounts(s.Identities, o.Identities)
	d.Declined = addCounts(s.Declined, o.Declined)
	return d
}

func addCounts(a, b map[string]int64) map[string]int64 {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	out := make(map[string]int64, len(a)+len(b))
	for k, v := range a {
		out[k] += v
	}
	for k, v := range b {
		out[k] += v
	}
	return out
}

// load returns what the kept iterations cost the machine, over their wall
// time: ok is false when the machine could not be watched.
func (m *meter) load(wall time.Duration, server ServerSnapshot, serverInProcess bool) (usage.Load, bool) {
	if m.machineErr != nil || m.cpus == nil || m.total.machine.Total <= 0 {
		return usage.Load{}, false
	}
	return usage.Load{
		Wall:        wall,
		Client:      m.total.self.CPU,
		Server:      server.CPU,
		ServerKnown: server.HasCPU || serverInProcess,
		CPUs:        len(m.cpus),
		Machine:     m.total.machine,
	}, true
}

// recordMachine puts the machine's load over the kept iterations in rec
// and returns its notes (saturation only when saturation says so: bulk
// transfer is meant to fill the CPUs, a handshake benchmark is not).
func recordMachine(rec *results.Record, l usage.Load, saturation bool) {
	busy, _, other, ok := l.Shares()
	if !ok {
		return
	}
	rec.CPUsAvailable = l.CPUs
	rec.MachineBusy = results.Float(busy)
	rec.OtherCPUShare = results.Float(other)
	if n := l.SaturationNote(); saturation && n != "" {
		rec.Notes = append(rec.Notes, n)
	}
	if n := l.OtherLoadNote(); n != "" {
		rec.Notes = append(rec.Notes, n)
	}
}
