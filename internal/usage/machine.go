package usage

import (
	"fmt"
	"slices"
	"time"
)

// CPUSet is a set of CPU numbers, as the scheduler numbers them.
type CPUSet map[int]bool

// Union returns the CPUs in s or t.
func (s CPUSet) Union(t CPUSet) CPUSet {
	u := make(CPUSet, len(s)+len(t))
	for c := range s {
		u[c] = true
	}
	for c := range t {
		u[c] = true
	}
	return u
}

// MachineTimes is what a set of CPUs did, cumulatively, as /proc/stat
// accounts it: Busy is everything but idle and I/O wait, steal time
// included (a hypervisor that takes a CPU away from this machine takes
// it from the benchmark just as another process would).
type MachineTimes struct {
	Busy, Total time.Duration
}

// Sub returns the times between earlier and m.
func (m MachineTimes) Sub(earlier MachineTimes) MachineTimes {
	return MachineTimes{Busy: m.Busy - earlier.Busy, Total: m.Total - earlier.Total}
}

// Load is what one stretch of a benchmark cost the machine: the CPU time
// of the client and the server (ServerKnown false when the server's CPU
// cannot be observed), and what the CPUs they may run on did meanwhile.
type Load struct {
	Wall        time.Duration
	Client      time.Duration
	Server      time.Duration
	ServerKnown bool
	// Peers is the CPU time of the run's other known processes
	// meanwhile (in an interleaved run, the other sides' servers and
	// proxies): the benchmark's own load, not other load.
	Peers time.Duration
	// CPUs is how many CPUs the client and the server may run on
	// together (the union of their affinity masks).
	CPUs    int
	Machine MachineTimes
}

// Thresholds of the notes: a machine at or above SaturatedShare of the
// CPUs the benchmark may use measures the machine's limit rather than the
// TLS stack's cost; OtherShare of those CPUs taken by other processes
// makes the figures depend on them.
const (
	SaturatedShare = 0.9
	OtherShare     = 0.1
)

// Shares returns, as shares of the CPU time the available CPUs had: how
// busy they were (any process), how much of that the client and the
// server took (with the run's other processes, Peers), and how much the
// rest of the machine took (other
// processes, the kernel's work for them, steal). ok is false when the
// load cannot be judged (no machine times, or a zero interval).
func (l Load) Shares() (busy, ours, other float64, ok bool) {
	if l.Machine.Total <= 0 || l.CPUs <= 0 {
		return 0, 0, 0, false
	}
	total := float64(l.Machine.Total)
	busy = float64(l.Machine.Busy) / total
	ours = float64(l.Client+l.Server+l.Peers) / total
	// The kernel's jiffy accounting and the processes' own rusage are
	// sampled differently: clamp the small differences this leaves
	// instead of reporting "-1% other load", or CPUs less busy than the
	// client and the server alone kept them.
	other = max(busy-ours, 0)
	busy = max(busy, ours)
	return min(busy, 1), min(ours, 1), min(other, 1), true
}

// Notes returns the remarks a record needs about the machine: saturated,
// or shared with other load. They say what the figures then mean.
func (l Load) Notes() []string {
	var notes []string
	if n := l.SaturationNote(); n != "" {
		notes = append(notes, n)
	}
	if n := l.OtherLoadNote(); n != "" {
		notes = append(notes, n)
	}
	return notes
}

// SaturationNote says that the client and the server themselves used
// (nearly) all the CPUs they may run on, or is empty. A handshake case on
// a machine it saturates measures how the machine queues work, not what
// a handshake costs. A machine made as busy by other processes is not
// saturated by the benchmark: OtherLoadNote says that.
func (l Load) SaturationNote() string {
	busy, ours, _, ok := l.Shares()
	if !ok || ours < SaturatedShare {
		return ""
	}
	return fmt.Sprintf(
		"the machine was saturated: its %d CPU(s) that %s may run on were %.0f%% busy (%s %.0f%%); times and rates show what this machine can do at this concurrency (CPU per handshake is still each process's own)",
		l.CPUs, l.ourNames(), 100*busy, l.ourNames(), 100*ours)
}

// OtherLoadNote says that processes other than the client and the server
// took a noticeable share of their CPUs, or is empty; when the CPUs were
// saturated that way, it says so.
func (l Load) OtherLoadNote() string {
	busy, ours, other, ok := l.Shares()
	if !ok || other < OtherShare {
		return ""
	}
	who := "other processes"
	if !l.ServerKnown {
		who = "processes other than the client (the server among them, its CPU not being observed)"
	}
	msg := fmt.Sprintf("other load on the machine: %s took %.0f%% of the %d CPU(s) the benchmark may use", who, 100*other, l.CPUs)
	if busy >= SaturatedShare && ours < SaturatedShare {
		return msg + fmt.Sprintf(
			"; the machine was saturated by that load (%.0f%% busy, %s %.0f%%): the figures describe the contention with it, not the cost of the TLS stack alone",
			100*busy, l.ourNames(), 100*ours)
	}
	return msg + "; the figures may be slower and noisier than on a quiet machine"
}

// ourNames names whose CPU time the load counts as the benchmark's: the
// client alone when the server's is not observed.
func (l Load) ourNames() string {
	switch {
	case l.ServerKnown && l.Peers > 0:
		return "client and servers"
	case l.ServerKnown:
		return "client and server"
	case l.Peers > 0:
		return "the client and the other sides' servers"
	}
	return "the client"
}

// PeersShare is the share of the available CPUs' time the run's other
// processes took (Peers), and false when the load cannot be judged or
// there were none.
func (l Load) PeersShare() (float64, bool) {
	if l.Machine.Total <= 0 || l.CPUs <= 0 || l.Peers <= 0 {
		return 0, false
	}
	return min(float64(l.Peers)/float64(l.Machine.Total), 1), true
}

// cpuList lists a set's CPUs in order, for messages.
func cpuList(s CPUSet) []int {
	out := make([]int, 0, len(s))
	for c := range s {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}
