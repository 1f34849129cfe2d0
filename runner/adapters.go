package runner

import (
	"context"
	"net"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/memconn"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/proxy"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/stats"
)

// The adapters that join the load generator to the built-in server. They
// live here, where both ends meet, so that loadgen imports no server
// code: it sees a server only through client.Dialer and
// measure.ServerObserver.
var (
	_ client.Dialer          = MemoryDialer{}
	_ measure.ServerObserver = ChildServer{}
	_ measure.ServerProcess  = ChildServer{}
	_ measure.ServerObserver = InProcessServer{}
	_ measure.ProxyObserver  = ChildProxy{}
	_ measure.ProxyProcess   = ChildProxy{}
)

// MemoryDialer connects to an in-process server over a buffered in-memory
// pipe: no sockets, no kernel, for comparison with loopback TCP.
type MemoryDialer struct {
	Server *server.Server
	// Ctx bounds the server side of each connection.
	Ctx context.Context
}

// Dial implements client.Dialer.
func (d MemoryDialer) Dial(ctx context.Context, _ time.Time) (net.Conn, error) {
	client, srv := memconn.Pipe()
	sctx := d.Ctx
	if sctx == nil {
		sctx = context.Background()
	}
	go d.Server.ServeConn(sctx, srv)
	return client, nil
}

// Transport implements client.Dialer.
func (MemoryDialer) Transport() string { return "memory" }

// ChildServer observes a built-in server running as a child process: its
// counts, and its CPU time and allocations, which are its own.
type ChildServer struct{ Child *server.Child }

// Snapshot implements measure.ServerObserver.
func (o ChildServer) Snapshot() (measure.ServerSnapshot, error) {
	c, err := o.Child.Counters()
	if err != nil {
		return measure.ServerSnapshot{}, err
	}
	return measure.ServerSnapshot{
		HasCounts: true, Handshakes: c.Handshakes, Resumed: c.Resumed, Failures: c.Failures, Identities: c.Identities,
		KeyDecryptions: c.KeyDecryptions, Declined: c.Declined, Phases: serverPhases(c.Phases),
		HandshakeCPU: handshakeCPU(c.HandshakeCPU), HandshakeCPULost: c.HandshakeCPULost,
		// A server that serves QUIC counts the early data it takes.
		HasEarlyData: o.Child.Hello().QUICAddr != "", EarlyDataAccepted: c.EarlyDataAccepted, EarlyDataRejected: c.EarlyDataRejected,
		QUICRetries: c.QUICRetries, QUICRefused: c.QUICRefused,
		HasCPU: true, CPU: time.Duration(c.CPUNanos),
		HasAlloc: true, AllocBytes: c.AllocBytes, Instructions: c.Instructions,
	}, nil
}

// handshakeCPU maps the server's handshake CPU time by kind to the
// record's part names (nil when the server does not measure it).
func handshakeCPU(byKind map[string]int64) map[string]int64 {
	if byKind == nil {
		return nil
	}
	return map[string]int64{results.PartFull: byKind[server.HandshakeFull], results.PartResumed: byKind[server.HandshakeResumed]}
}

// serverPhaseNames maps the server's phase names to the record's.
var serverPhaseNames = map[string]string{
	server.PhaseHandshake:    results.PhaseServerHandshake,
	server.PhaseKey:          results.PhaseServerKey,
	server.PhaseSessionStore: results.PhaseServerSessionStore,
}

// serverPhases decodes the server's phase histograms under the record's
// names. A server that sent none, or one that cannot be decoded (another
// tlsbench's server, say), has no phases: they are then absent from the
// record rather than wrong.
func serverPhases(encoded map[string]string) map[string]*stats.Latency {
	if len(encoded) == 0 {
		return nil
	}
	out := make(map[string]*stats.Latency, len(encoded))
	for name, e := range encoded {
		rec, ok := serverPhaseNames[name]
		if !ok {
			continue
		}
		l, err := stats.DecodeLatency(e)
		if err != nil {
			return nil
		}
		out[rec] = l
	}
	return out
}

// ServerPID implements measure.ServerProcess: the child's process id,
// whose CPUs the case watches.
func (o ChildServer) ServerPID() int { return o.Child.PID() }

// InProcessServer observes a built-in server in this process: its counts
// only, since its CPU time and allocations are mixed with the client's.
type InProcessServer struct{ Server *server.Server }

// Snapshot implements measure.ServerObserver.
func (o InProcessServer) Snapshot() (measure.ServerSnapshot, error) {
	c := o.Server.Counters()
	return measure.ServerSnapshot{HasCounts: true, Handshakes: c.Handshakes, Resumed: c.Resumed, Failures: c.Failures, Identities: c.Identities,
		KeyDecryptions: c.KeyDecryptions, Declined: c.Declined, Phases: serverPhases(c.Phases),
		QUICRetries: c.QUICRetries, QUICRefused: c.QUICRefused}, nil
}

// ChildProxy observes the built-in proxy running as a child process: its
// counts and its CPU time, which are its own.
type ChildProxy struct{ Child *proxy.Child }

// Snapshot implements measure.ProxyObserver.
func (o ChildProxy) Snapshot() (measure.ProxySnapshot, error) {
	c, err := o.Child.Counters()
	if err != nil {
		return measure.ProxySnapshot{}, err
	}
	return measure.ProxySnapshot{
		HasCounts: true, ClientHandshakes: c.ClientHandshakes, ClientResumed: c.ClientResumed,
		OriginHandshakes: c.OriginHandshakes, OriginResumed: c.OriginResumed,
		Mints: c.Mints, MintHits: c.MintHits, UserSpaceBytes: c.UserSpaceBytes,
		Relay: c.Relay, Failures: c.Failures, Fallbacks: c.Fallbacks,
		HasCPU: true, CPU: time.Duration(c.CPUNanos),
	}, nil
}

// ProxyPID implements measure.ProxyProcess.
func (o ChildProxy) ProxyPID() int { return o.Child.PID() }
