package loadgen

import (
	"github.com/tlsbench/tlsbench/internal/usage"
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
	self   usage.Snapshot
	srv    ServerSnapshot
	srvErr error
}

// span is the cost of one iteration: the difference of its two
// boundaries.
type span struct {
	self usage.Snapshot
	// srv is the server's counts over the iteration; zero when srvErr is
	// set (either read failed).
	srv    ServerSnapshot
	srvErr error
}

// meter reads the boundaries around iterations and sums the spans that
// are kept.
type meter struct {
	server ServerObserver // nil: no server figures
	start  boundary       // of the iteration in progress

	total  span // sum of the kept spans
	kept   int
	srvErr error // the first failure to read the server, if any
}

// begin reads the boundary before an iteration: the server first, so that
// asking it costs the client's span nothing.
func (m *meter) begin() {
	if m.server != nil {
		m.start.srv, m.start.srvErr = m.server.Snapshot()
	}
	m.start.self = usage.Self()
}

// end reads the boundary after an iteration (the client first, for the
// same reason) and returns the iteration's span.
func (m *meter) end() span {
	var b boundary
	b.self = usage.Self()
	if m.server != nil {
		b.srv, b.srvErr = m.server.Snapshot()
	}
	s := span{self: b.self.Sub(m.start.self)}
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
