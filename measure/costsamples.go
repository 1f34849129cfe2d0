package measure

import (
	"time"

	"github.com/tlsbench/tlsbench/internal/callgrind"
	"github.com/tlsbench/tlsbench/results"
)

// costSamples are the costs of each kept iteration per successful
// handshake, read at the boundaries samples_us is timed between (its
// span), so that a comparison pairs them by index as it pairs the times.
// A cost unknown in any kept iteration (a reading failed or went
// backwards) is unknown for the case: its list is dropped (no*), never
// filled in. The ticks are the coarsest resolution of the readings kept.
type costSamples struct {
	client, alloc, server, proxy []float64
	noServer, noProxy            bool
	serverTick, proxyTick        time.Duration
	instr, clientInstr           callgrind.Iterations // the server's and the client's, under --count instructions
}

// keep adds one kept iteration of ok successful handshakes and span sp.
func (c *costSamples) keep(ok int64, sp span) {
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 / float64(ok) }
	c.client = append(c.client, per(sp.Self.CPU))
	c.alloc = append(c.alloc, float64(sp.Self.AllocBytes)/float64(ok))
	c.noServer = c.noServer || sp.srvErr != nil || !sp.srv.HasCPU || sp.back.ServerCPU
	c.server, c.serverTick = append(c.server, per(sp.srv.CPU)), max(c.serverTick, sp.srv.CPUTick)
	c.noProxy = c.noProxy || sp.prxErr != nil || !sp.prx.HasCPU || sp.back.proxyCPU
	c.proxy, c.proxyTick = append(c.proxy, per(sp.prx.CPU)), max(c.proxyTick, sp.prx.CPUTick)
	c.instr.Keep(sp.srv.Instructions, ok)
	c.clientInstr.Keep(sp.instr, ok)
}

// record puts the lists in rec where the case's own figures are known:
// a list beside a null client_cpu_us (memory transport) or server_cpu_us
// would be a figure the case does not have.
func (c *costSamples) record(rec *results.Record) {
	rec.ClientCPUSamplesUS, rec.ServerCPUSamplesUS, rec.ProxyCPUSamplesUS, rec.AllocSamplesBytes = nil, nil, nil, nil
	rec.ServerCPUTickUS, rec.ProxyCPUTickUS = nil, nil
	rec.ServerInstructionsSamples, rec.ServerInstructionsPerHS = c.instr.Figures(len(rec.SamplesUS))
	rec.ClientInstructionsSamples, rec.ClientInstructionsPerHS = c.clientInstr.Figures(len(rec.SamplesUS))
	if n := len(rec.SamplesUS); n == 0 || len(c.client) != n {
		return
	}
	rec.AllocSamplesBytes = c.alloc
	if rec.ClientCPUUS != nil {
		rec.ClientCPUSamplesUS = c.client
	}
	if rec.ServerCPUUS != nil && !c.noServer {
		rec.ServerCPUSamplesUS, rec.ServerCPUTickUS = c.server, results.TickUS(c.serverTick)
	}
	if rec.ProxyCPUUS != nil && !c.noProxy {
		rec.ProxyCPUSamplesUS, rec.ProxyCPUTickUS = c.proxy, results.TickUS(c.proxyTick)
	}
}
