package loadgen

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/internal/counts"
	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/internal/usage"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// tpFigures are the statistics of a throughput case's kept iterations.
type tpFigures struct {
	iters     stats.Summary // of the samples (microseconds per megabyte)
	rates     stats.Summary // of the per-iteration rates
	server    measure.ServerSnapshot
	serverErr error
	load      usage.Load
	hasLoad   bool
}

// summarise computes the figures of the kept iterations.
func (r *tpRunner) summarise(m *tpMeasured) tpFigures {
	f := tpFigures{iters: stats.Summarize(m.samples), rates: stats.Summarize(m.rates)}
	f.server, f.serverErr = m.meter.ServerTotal()
	// An observed server that reports no CPU of its own runs in this
	// process: its CPU is in the client's.
	inProcess := r.tc.Server != nil && f.serverErr == nil && !f.server.HasCPU
	f.load, f.hasLoad = m.meter.Load(m.total.wall, f.server, inProcess)
	return f
}

// cutNote says where the case time stopped a measured iteration.
func (r *tpRunner) cutNote(iteration int, it tpIter) string {
	tc := r.tc
	if tc.Duration > 0 {
		return fmt.Sprintf("stopped by %s %v during measured iteration %d of %d (of %v); the figures cover what was moved",
			tc.Words.Name("MaxDuration"), tc.MaxDuration, iteration, tc.Iterations, tc.Duration)
	}
	return fmt.Sprintf("stopped by %s %v during measured iteration %d of %d, after %d MB of the %d MB per connection and direction it was to move; the figures cover what was moved",
		tc.Words.Name("MaxDuration"), tc.MaxDuration, iteration, tc.Iterations, it.bytes/int64(len(r.conns))/dirCount(tc.Direction)/1e6, r.roundBytes(tc.Bytes)/1e6)
}

// record builds the record of the kept iterations from their figures.
func (r *tpRunner) record(m *tpMeasured, f tpFigures) *results.Record {
	tc := r.tc
	total := m.total
	rec := tc.Record
	rec.Name = tc.Name
	rec.Kind = results.KindThroughput
	rec.TLSVersion = tlsconf.VersionName(tc.Version)
	rec.Concurrency = tc.Concurrency
	rec.Transport = tc.Dialer.Transport()
	rec.Handshakes = int64(len(r.conns))
	rec.Group = tlsconf.GroupName(r.conns[0].state.CurveID)
	rec.Cipher = ktls.CipherOf(r.conns[0].state.CipherSuite)
	rec.BufferBytes = tc.Buffer
	rec.Direction = tc.Direction
	if tc.isHTTP() {
		rec.Request = ThroughputRequestHTTP
	}
	measure.SetSummary(&rec, m.samples, f.iters)
	rec.MBps = results.Float(total.mbps())
	rec.Extra = map[string]float64{
		"bytes":    float64(total.bytes),
		"seconds":  total.wall.Seconds(),
		"mbps_min": f.rates.Min,
		"mbps_max": f.rates.Max,
	}
	if !math.IsNaN(f.rates.Error) {
		rec.Extra["mbps_error"] = f.rates.Error
	}
	r.ktlsFields(&rec)
	rec.Notes = append(rec.Notes, r.notes...)
	rec.Notes = append(rec.Notes, m.meter.Back.Notes()...)
	if f.hasLoad {
		// Bulk transfer is meant to fill the CPUs: only other load is
		// worth a note.
		measure.RecordMachine(&rec, f.load, false)
	}
	r.cpuFigures(&rec, m, f)
	prx, prxErr := m.meter.ProxyTotal()
	measure.ProxyFigures(&rec, tc.Proxy, prx, prxErr, float64(total.bytes)/1e6)
	if r.proxyBase != nil && prxErr == nil {
		if relay, fallbacks, ok := m.meter.RelaySince(*r.proxyBase); ok {
			rec.ProxyRelay = counts.RelayModes(relay)
			if note := fallbackNote(relay, fallbacks); note != "" {
				rec.Notes = append(rec.Notes, note)
			}
		}
	}
	return &rec
}

// cpuFigures fills each end's CPU over the measured time, where it can
// be told apart.
func (r *tpRunner) cpuFigures(rec *results.Record, m *tpMeasured, f tpFigures) {
	tc := r.tc
	self, total := m.meter.Total.Self, m.total
	gb := float64(total.bytes) / 1e9
	pct := func(d time.Duration) *float64 { return results.Float(100 * d.Seconds() / total.wall.Seconds()) }
	rec.ClientCPUPct, rec.ServerCPUPct = nil, nil
	switch {
	case tc.Server != nil && f.serverErr != nil:
		rec.Notes = append(rec.Notes, "server counters unavailable: "+f.serverErr.Error())
	case f.server.HasCPU:
		rec.ServerCPUPct = pct(f.server.CPU)
		rec.Extra["server_cpu_s_per_gb"] = f.server.CPU.Seconds() / gb
	}
	if self.CPU <= 0 {
		return
	}
	// A server whose CPU went backwards is still a process of its own:
	// the client's CPU is the client's.
	if tc.Server != nil && (f.server.HasCPU || m.meter.Back.ServerCPU) {
		rec.ClientCPUPct = pct(self.CPU)
		rec.Extra["client_cpu_s_per_gb"] = self.CPU.Seconds() / gb
		return
	}
	// The server may run in this process: the CPU time is both ends'
	// (or unknown to split), so only the total.
	rec.Extra["process_cpu_pct"] = *pct(self.CPU)
	rec.Notes = append(rec.Notes, "client and server CPU not separable (server not in a process of its own): extra.process_cpu_pct is this process's")
}

// ktlsFields records the kTLS state in effect. ktls_tx says whether the
// kernel encrypted the data on the sending end(s) of the case's direction,
// ktls_rx whether it decrypted on the receiving end(s): the server's TX and
// the client's RX for a download, the other way round for an upload, all
// four for both. Each end's own state is in extra (share of connections).
func (r *tpRunner) ktlsFields(rec *results.Record) {
	var cTX, cRX, sTX, sRX, sendfile float64 // shares of connections
	for _, c := range r.conns {
		cTX += b2f(c.clientTX)
		cRX += b2f(c.clientRX)
		sTX += b2f(c.ack.KTLSTX)
		sRX += b2f(c.ack.KTLSRX)
		sendfile += b2f(c.ack.Sendfile)
	}
	n := float64(len(r.conns))
	cTX, cRX, sTX, sRX, sendfile = cTX/n, cRX/n, sTX/n, sRX/n, sendfile/n
	rec.Extra["client_ktls_tx"], rec.Extra["client_ktls_rx"] = cTX, cRX
	rec.Extra["server_ktls_tx"], rec.Extra["server_ktls_rx"] = sTX, sRX
	if r.tc.Source != nil {
		rec.Extra["sendfile"] = sendfile
		if sendfile == 1 {
			rec.Notes = append(rec.Notes, "the server sent the file with sendfile(2) (TX offloaded)")
		} else {
			rec.Notes = append(rec.Notes, fmt.Sprintf("the server read the file in %d-byte reads (no sendfile: TX not offloaded)", r.tc.Buffer))
		}
	}
	var tx, rx bool
	switch r.tc.Direction {
	case DirectionDownload:
		tx, rx = sTX == 1, cRX == 1
	case DirectionUpload:
		tx, rx = cTX == 1, sRX == 1
	default:
		tx, rx = sTX == 1 && cTX == 1, cRX == 1 && sRX == 1
	}
	rec.KTLSTX, rec.KTLSRX = results.Bool(tx), results.Bool(rx)
	for _, v := range []float64{cTX, cRX, sTX, sRX} {
		if v > 0 && v < 1 {
			rec.Notes = append(rec.Notes, "kTLS was in effect on some connections only; ktls_tx/ktls_rx say false")
			break
		}
	}
}

// dirCount is how many directions a case moves data in.
func dirCount(direction string) int64 {
	if direction == DirectionBoth {
		return 2
	}
	return 1
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// fallbackWhy explains the proxy's reasons for relaying a leg in user
// space with kernel TLS auto (the keys of its fallback counts after the
// leg).
var fallbackWhy = map[string]string{
	"unsupported":   "the kernel does not take this version and cipher",
	"no-kernel-tls": "the kernel has no TLS ULP (built without CONFIG_TLS, or its module not loaded: modprobe tls)",
	"tls12-resumed": "a resumed TLS 1.2 session gives the proxy no keys for the kernel",
	"early-tls":     "the client sent TLS before the CONNECT answer",
	"error":         "switching to kernel TLS failed (the proxy's log says why)",
}

// fallbackNote says which legs of how many connections the proxy relayed
// in user space although its kernel TLS was asked for (auto), and why:
// "" when none fell back.
func fallbackNote(relay, fallbacks map[string]int64) string {
	var parts []string
	for _, k := range sortedKeys(fallbacks) {
		n := fallbacks[k]
		leg, reason, _ := strings.Cut(k, ":")
		if n <= 0 {
			continue
		}
		var conns int64
		for rk, rn := range relay {
			if strings.HasPrefix(rk, leg+":") {
				conns += rn
			}
		}
		why := fallbackWhy[reason]
		if why == "" {
			why = reason
		}
		parts = append(parts, fmt.Sprintf("%s leg of %d of %d connections: %s", leg, n, max(conns, n), why))
	}
	if len(parts) == 0 {
		return ""
	}
	return "the proxy's kernel TLS fell back to user space on the " + strings.Join(parts, "; the ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
