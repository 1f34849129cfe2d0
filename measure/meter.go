package measure

import (
	"cmp"
	"time"

	"github.com/tlsbench/tlsbench/internal/callgrind"
	"github.com/tlsbench/tlsbench/internal/usage"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
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
	prx     ProxySnapshot
	prxErr  error
	// peers is the CPU time of the run's other sides' processes
	// (meter.peers) so far; peersErr why it could not be read.
	peers    time.Duration
	peersErr error
	// Listen is the machine's listen-queue counters (listenqueue.go).
	listen usage.ListenReading
	// instr is this process's own instruction count, in a counted run.
	instr *int64
}

// span is the cost of one iteration: the difference of its two
// boundaries.
type span struct {
	Self usage.Snapshot
	// instr is the client's instructions over the iteration (a counted
	// run: callgrind.InCountedRun); nil when not counted.
	instr *int64
	// srv is the server's counts over the iteration; zero when srvErr is
	// set (either read failed).
	srv    ServerSnapshot
	srvErr error
	// Back names the cumulative figures that went backwards over the
	// iteration (see backwards).
	back backwards
	// machine is what the CPUs that client and server may run on did
	// over the iteration, whoever ran on them; zero when unknown.
	machine usage.MachineTimes
	// prx is the proxy's counts over the iteration (a case through a
	// proxy); zero when prxErr is set.
	prx    ProxySnapshot
	prxErr error
	// peers is what the run's other sides' processes used over the
	// iteration; 0 when unknown.
	peers time.Duration
	// Listen is what the machine's listeners dropped over the
	// iteration, when the case counts it.
	listen usage.ListenCount
}

// backwards marks cumulative figures that were lower at the end of an
// iteration than at its start. A counter that goes back has lost what it
// counted (a process of the server exited and took its CPU time with it;
// the server restarted): its difference is not what the iteration cost,
// and the case's figure from it is unknown, never negative.
type backwards struct {
	ServerCPU, serverCounts, serverAlloc, machine bool
	proxyCPU, proxyCounts                         bool
	serverPhases                                  bool
}

func (b backwards) or(o backwards) backwards {
	return backwards{b.ServerCPU || o.ServerCPU, b.serverCounts || o.serverCounts,
		b.serverAlloc || o.serverAlloc, b.machine || o.machine,
		b.proxyCPU || o.proxyCPU, b.proxyCounts || o.proxyCounts,
		b.serverPhases || o.serverPhases}
}

// Notes says what each figure that went backwards means for the case.
func (b backwards) Notes() []string {
	var notes []string
	if b.ServerCPU {
		notes = append(notes, "server CPU unknown: the server's CPU time went backwards during a measured iteration: a process of it exited mid-case, and its CPU time left with it")
	}
	if b.serverCounts {
		notes = append(notes, "server counts unknown: the server's counters went backwards during a measured iteration (was it restarted?)")
	}
	if b.serverAlloc {
		notes = append(notes, "server allocations unknown: the server's allocation counter went backwards during a measured iteration (was it restarted?)")
	}
	if b.serverPhases {
		notes = append(notes, "server phases unknown: the server's phase histograms went backwards during a measured iteration (was it restarted?)")
	}
	if b.proxyCPU {
		notes = append(notes, "proxy CPU unknown: the proxy's CPU time went backwards during a measured iteration: a process of it exited mid-case, and its CPU time left with it")
	}
	if b.proxyCounts {
		notes = append(notes, "proxy counts unknown: the proxy's counters went backwards during a measured iteration (was it restarted?)")
	}
	if b.machine {
		notes = append(notes, "machine load unknown: the machine's CPU times went backwards during a measured iteration")
	}
	return notes
}

// serverDelta returns the server's counts between earlier and now, with
// the figures that went backwards marked and cleared.
func serverDelta(now, earlier ServerSnapshot) (ServerSnapshot, backwards) {
	d := now.sub(earlier)
	var b backwards
	if d.HasCPU && d.CPU < 0 {
		b.ServerCPU, d.HasCPU, d.CPU = true, false, 0
	}
	if d.HasAlloc && now.AllocBytes < earlier.AllocBytes {
		b.serverAlloc, d.HasAlloc, d.AllocBytes = true, false, 0
	}
	if d.HasCounts && (d.Handshakes < 0 || d.Resumed < 0 || d.KeyDecryptions < 0 || d.EarlyDataAccepted < 0 || d.EarlyDataRejected < 0 ||
		d.QUICRetries < 0 || d.QUICRefused < 0 ||
		anyNegative(d.Failures) || anyNegative(d.Identities) || anyNegative(d.Declined)) {
		b.serverCounts, d.HasCounts = true, false
	}
	if d.phasesLost {
		b.serverPhases, d.Phases, d.phasesLost = true, nil, false
	}
	return d, b
}

// subPhases returns the server's phases between two snapshots, and true
// when one went backwards (then nil). A phase missing from earlier had
// recorded nothing yet; one missing from now is not reported at all.
func subPhases(now, earlier map[string]*stats.Latency) (map[string]*stats.Latency, bool) {
	if now == nil {
		return nil, false
	}
	out := make(map[string]*stats.Latency, len(now))
	for name, l := range now {
		d, err := l.Sub(earlier[name])
		if err != nil {
			return nil, true
		}
		out[name] = d
	}
	return out, false
}

// addPhases returns the phases of two spans together.
func addPhases(a, b map[string]*stats.Latency) map[string]*stats.Latency {
	if a == nil && b == nil {
		return nil
	}
	out := make(map[string]*stats.Latency, max(len(a), len(b)))
	for _, m := range []map[string]*stats.Latency{a, b} {
		for name, l := range m {
			if out[name] == nil {
				out[name] = stats.NewLatency()
			}
			out[name].Merge(l)
		}
	}
	return out
}

func anyNegative(m map[string]int64) bool {
	for _, v := range m {
		if v < 0 {
			return true
		}
	}
	return false
}

// Meter reads the boundaries around iterations and sums the spans that
// are kept.
type Meter struct {
	server ServerObserver // nil: no server figures
	proxy  ProxyObserver  // nil: no proxy between client and server
	// cpus are the CPUs the client and the server may run on; nil when
	// the machine's load cannot be read (then machineErr says why).
	cpus       usage.CPUSet
	machineErr error
	start      boundary // of the iteration in progress

	Total  span // sum of the kept spans
	kept   int
	srvErr error // the first failure to read the server, if any
	prxErr error // the first failure to read the proxy, if any
	Back   backwards
	// lastPrx is the proxy's last snapshot read at a boundary, for the
	// counts it keeps per connection rather than per byte (see
	// relaySince).
	lastPrx   ProxySnapshot
	hasLastPx bool
	// peers are the process ids of the run's other known processes:
	// in an interleaved run, the other sides' servers and proxies. They
	// run during this side's iterations too (a JVM's compiler and
	// collector catch up while its side is idle), and that is the
	// benchmark's own load, not other load on the machine.
	peers []int
	// listenOn says the case counts the machine's listen-queue drops
	// (HandshakeCase.ListenQueue); listen sums them over the kept
	// iterations and the one that failed (see countFailed).
	listenOn bool
	Listen   usage.ListenCount
}

// NewMeter returns a meter for a case against server (nil: none)
// through proxy (nil: none), which also watches the CPUs the client and
// local server and proxy processes may run on.
func NewMeter(server ServerObserver, proxy ProxyObserver) *Meter {
	m := &Meter{server: server, proxy: proxy}
	m.cpus, m.machineErr = usage.AllowedCPUs(0)
	var pids []int
	if p, ok := server.(ServerProcess); ok {
		pids = append(pids, p.ServerPID())
	}
	if p, ok := proxy.(ProxyProcess); ok {
		pids = append(pids, p.ProxyPID())
	}
	for _, pid := range pids {
		if m.machineErr != nil {
			break
		}
		var theirs usage.CPUSet
		if theirs, m.machineErr = usage.AllowedCPUs(pid); m.machineErr == nil {
			m.cpus = m.cpus.Union(theirs)
		}
	}
	if m.machineErr != nil {
		m.cpus = nil
	}
	return m
}

// WatchPeers counts the CPU of the processes pids (those of the run's
// other sides) as the benchmark's own, and watches the CPUs they may run
// on with the case's. It must be called before the first iteration.
func (m *Meter) WatchPeers(pids []int) {
	m.peers = pids
	for _, pid := range pids {
		if m.cpus == nil {
			return
		}
		if theirs, err := usage.AllowedCPUs(pid); err == nil {
			m.cpus = m.cpus.Union(theirs)
		}
	}
}

// readPeers sums the CPU time of the peers so far.
func (m *Meter) readPeers() (time.Duration, error) {
	var sum time.Duration
	for _, pid := range m.peers {
		cpu, err := usage.ProcessTreeCPU(pid)
		if err != nil {
			return 0, err
		}
		sum += cpu
	}
	return sum, nil
}

// Begin reads the boundary before an iteration: the server first, so that
// asking it costs the client's span nothing.
func (m *Meter) Begin() {
	if m.server != nil {
		m.start.srv, m.start.srvErr = m.server.Snapshot()
	}
	if m.proxy != nil {
		m.start.prx, m.start.prxErr = m.proxy.Snapshot()
	}
	if len(m.peers) > 0 {
		m.start.peers, m.start.peersErr = m.readPeers()
	}
	m.start.machine, m.start.machErr = m.readMachine()
	m.start.listen = usage.ReadListen(m.listenOn)
	m.start.self, m.start.instr = usage.Self(), selfInstructions()
}

// selfCount is this process's instruction count, read at the boundaries
// when it runs under callgrind.
var selfCount callgrind.Counter

// selfInstructions reads it (nil when not counted), the reading's own
// work left out of the count.
func selfInstructions() (n *int64) {
	selfCount.Read(func(i *int64) error { n = i; return nil })
	return n
}

// readMachine reads the times of the watched CPUs.
func (m *Meter) readMachine() (usage.MachineTimes, error) {
	if m.cpus == nil {
		return usage.MachineTimes{}, m.machineErr
	}
	return usage.Machine(m.cpus)
}

// End reads the boundary after an iteration (the client first, for the
// same reason) and returns the iteration's span.
func (m *Meter) End() span {
	var b boundary
	b.self, b.instr = usage.Self(), selfInstructions()
	b.machine, b.machErr = m.readMachine()
	b.listen = usage.ReadListen(m.listenOn)
	if m.server != nil {
		b.srv, b.srvErr = m.server.Snapshot()
	}
	if m.proxy != nil {
		b.prx, b.prxErr = m.proxy.Snapshot()
		if b.prxErr == nil {
			m.lastPrx, m.hasLastPx = b.prx, true
		}
	}
	if len(m.peers) > 0 {
		b.peers, b.peersErr = m.readPeers()
	}
	s := span{Self: b.self.Sub(m.start.self), instr: callgrind.Between(b.instr, m.start.instr)}
	s.listen.Add(m.start.listen, b.listen)
	if m.start.peersErr == nil && b.peersErr == nil && b.peers > m.start.peers {
		// A peer that exited took its CPU time with it: its span is
		// then unknown, and left out.
		s.peers = b.peers - m.start.peers
	}
	if m.start.machErr == nil && b.machErr == nil {
		s.machine = b.machine.Sub(m.start.machine)
		if s.machine.Busy < 0 || s.machine.Total < 0 {
			s.machine, s.back.machine = usage.MachineTimes{}, true
		}
	} else if m.machineErr == nil {
		m.machineErr = cmp.Or(m.start.machErr, b.machErr)
	}
	switch {
	case m.start.srvErr != nil:
		s.srvErr = m.start.srvErr
	case b.srvErr != nil:
		s.srvErr = b.srvErr
	case m.server != nil:
		var back backwards
		s.srv, back = serverDelta(b.srv, m.start.srv)
		s.back = s.back.or(back)
	}
	switch {
	case m.start.prxErr != nil:
		s.prxErr = m.start.prxErr
	case b.prxErr != nil:
		s.prxErr = b.prxErr
	case m.proxy != nil:
		var back backwards
		s.prx, back = proxyDelta(b.prx, m.start.prx)
		s.back = s.back.or(back)
	}
	return s
}

// Keep adds an iteration's span to the case's totals.
func (m *Meter) Keep(s span) {
	m.kept++
	m.Total.Self.CPU += s.Self.CPU
	m.Total.Self.AllocBytes += s.Self.AllocBytes
	m.Total.machine.Busy += s.machine.Busy
	m.Total.machine.Total += s.machine.Total
	m.Total.peers += s.peers
	m.Listen.Merge(s.listen)
	m.Back = m.Back.or(s.back)
	if s.srvErr != nil && m.srvErr == nil {
		m.srvErr = s.srvErr
	}
	if m.server != nil && s.srvErr == nil {
		m.Total.srv = m.Total.srv.add(s.srv)
	}
	if s.prxErr != nil && m.prxErr == nil {
		m.prxErr = s.prxErr
	}
	if m.proxy != nil && s.prxErr == nil {
		m.Total.prx = m.Total.prx.Add(s.prx)
	}
}

// countFailed counts what the machine's listeners dropped during an
// iteration that failed and is not kept: its failures are likely why.
func (m *Meter) countFailed(s span) {
	m.Listen.Merge(s.listen)
}

// ProxyTotal returns the proxy's counts over the kept iterations, or the
// error that made them unknown.
func (m *Meter) ProxyTotal() (ProxySnapshot, error) {
	t := m.Total.prx
	if m.Back.proxyCPU {
		t.HasCPU, t.CPU = false, 0
	}
	if m.Back.proxyCounts {
		t.HasCounts = false
	}
	return t, m.prxErr
}

// ServerTotal returns the server's counts over the kept iterations, or the
// error that made them unknown.
func (m *Meter) ServerTotal() (ServerSnapshot, error) {
	t := m.Total.srv
	if m.Back.ServerCPU {
		t.HasCPU, t.CPU = false, 0
	}
	if m.Back.serverCounts {
		t.HasCounts = false
	}
	if m.Back.serverAlloc {
		t.HasAlloc, t.AllocBytes = false, 0
	}
	if m.Back.serverPhases {
		t.Phases = nil
	}
	return t, m.srvErr
}

// Add sums two spans of server counts.
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
	d.Phases = addPhases(s.Phases, o.Phases)
	d.HandshakeCPU = addCounts(s.HandshakeCPU, o.HandshakeCPU)
	d.HandshakeCPULost += s.HandshakeCPULost
	d.EarlyDataAccepted += s.EarlyDataAccepted
	d.EarlyDataRejected += s.EarlyDataRejected
	d.QUICRetries += s.QUICRetries
	d.QUICRefused += s.QUICRefused
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

// Load returns what the kept iterations cost the machine, over their wall
// time: ok is false when the machine could not be watched.
func (m *Meter) Load(wall time.Duration, server ServerSnapshot, serverInProcess bool) (usage.Load, bool) {
	if m.machineErr != nil || m.cpus == nil || m.Total.machine.Total <= 0 || m.Back.machine {
		return usage.Load{}, false
	}
	// A proxy's CPU, when known, is the benchmark's own load too: it
	// counts with the server's, not as other load on the machine, as
	// does what the run's other sides' processes used meanwhile (Peers).
	ours := server.CPU
	if prx, err := m.ProxyTotal(); m.proxy != nil && err == nil && prx.HasCPU {
		ours += prx.CPU
	}
	return usage.Load{
		Wall:        wall,
		Client:      m.Total.Self.CPU,
		Server:      ours,
		ServerKnown: server.HasCPU || serverInProcess,
		Peers:       m.Total.peers,
		CPUs:        len(m.cpus),
		Machine:     m.Total.machine,
	}, true
}

// RecordMachine puts the machine's load over the kept iterations in rec
// and returns its notes (saturation only when saturation says so: bulk
// transfer is meant to fill the CPUs, a handshake benchmark is not).
func RecordMachine(rec *results.Record, l usage.Load, saturation bool) {
	busy, _, other, ok := l.Shares()
	if !ok {
		return
	}
	rec.CPUsAvailable = l.CPUs
	rec.MachineBusy = results.Float(busy)
	rec.OtherCPUShare = results.Float(other)
	if share, ok := l.PeersShare(); ok {
		if rec.Extra == nil {
			rec.Extra = map[string]float64{}
		}
		rec.Extra["other_sides_cpu_share"] = share
	}
	if n := l.SaturationNote(); saturation && n != "" {
		rec.Notes = append(rec.Notes, n)
	}
	if n := l.OtherLoadNote(); n != "" {
		rec.Notes = append(rec.Notes, n)
	}
}
