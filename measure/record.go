package measure

import (
	"fmt"
	"maps"
	"math"
	"strings"

	"github.com/tlsbench/tlsbench/internal/counts"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// SetSummary stores the per-iteration samples of a case and their
// statistics s in rec; the error is null with fewer than two samples.
func SetSummary(rec *results.Record, samples []float64, s stats.Summary) {
	rec.Iterations = len(samples)
	rec.SamplesUS = samples
	rec.MeanUS, rec.StddevUS, rec.MedianUS, rec.MinUS, rec.MaxUS = s.Mean, s.StdDev, s.Median, s.Min, s.Max
	rec.ErrorUS = nil
	if !math.IsNaN(s.Error) {
		rec.ErrorUS = results.Float(s.Error)
	}
}

// ProxyFigures fills a record's proxy fields from the proxy's counts over
// the kept iterations: its CPU divided over per units (handshakes, or
// megabytes moved), the relay modes, the certificates it minted, the
// client-leg handshakes it resumed.
func ProxyFigures(rec *results.Record, obs ProxyObserver, p ProxySnapshot, err error, per float64) {
	if obs == nil {
		return
	}
	if err != nil {
		rec.Notes = append(rec.Notes, "proxy counters unavailable: "+err.Error())
		return
	}
	if rec.Extra == nil {
		rec.Extra = map[string]float64{}
	}
	if p.HasCPU && per > 0 {
		us := float64(p.CPU.Nanoseconds()) / 1e3 / per
		rec.ProxyCPUUS = results.Float(us)
		if rec.Kind == results.KindThroughput {
			// µs per 10^6 bytes is ms per 10^9 bytes.
			rec.Extra["proxy_cpu_s_per_gb"] = us / 1e3
		}
	}
	if !p.HasCounts {
		return
	}
	rec.ProxyRelay = counts.RelayModes(p.Relay)
	rec.ProxyMints, rec.ProxyMintHits = results.Int(p.Mints), results.Int(p.MintHits)
	rec.ProxyResumed = results.Int(p.ClientResumed)
	rec.Extra["proxy_origin_handshakes"] = float64(p.OriginHandshakes)
	rec.Extra["proxy_origin_resumed"] = float64(p.OriginResumed)
	if rec.Kind == results.KindThroughput {
		// The payload that crossed the proxy's user space: all of it
		// in user-space or kTLS read/write relays, none with splice.
		rec.Extra["proxy_user_space_bytes"] = float64(p.UserSpaceBytes)
	}
	failures := p.Failures
	if rec.Kind == results.KindHandshake {
		// The client ends each connection with a reset (abortive close,
		// see connect): the proxy's relay sees it as such, every time.
		failures = maps.Clone(failures)
		delete(failures, "relay:reset")
	}
	if len(failures) > 0 {
		rec.Notes = append(rec.Notes, "proxy failures: "+counts.List(failures))
	}
}

// ProxyResumedError is a resume case in which the proxy counted another
// number of resumed client handshakes than the client saw: the client's
// leg was not what the client measured.
type ProxyResumedError struct {
	Case                  string
	Client, Failed, Proxy int64
}

func (e *ProxyResumedError) Error() string {
	return fmt.Sprintf("%s: the proxy counted %d resumed client handshakes, the client %d (with %d failed connections): the client's leg did not resume as the client saw it", e.Case, e.Proxy, e.Client, e.Failed)
}

// ProxyResumedGate checks, in a resume case, the proxy's own count of
// resumed client-leg handshakes against the client's: it may exceed it
// only by connections that failed on the client after the proxy's
// handshake.
func (hc *HandshakeCase) ProxyResumedGate(rec *results.Record, p ProxySnapshot, err error) error {
	if !hc.Resume || hc.Proxy == nil || err != nil || !p.HasCounts {
		return nil
	}
	if p.ClientResumed >= rec.Resumed && p.ClientResumed <= rec.Resumed+rec.Errors {
		return nil
	}
	e := &ProxyResumedError{Case: hc.Name, Client: rec.Resumed, Failed: rec.Errors, Proxy: p.ClientResumed}
	rec.Verdict = VerdictFailed
	rec.Notes = append(rec.Notes, "failed: "+strings.TrimPrefix(e.Error(), hc.Name+": "))
	return e
}

// proxyLegNote says which leg each figure of a case through a proxy
// describes.
const proxyLegNote = "through a proxy: resumed, resumption_rate and the resumption gate describe the client–proxy leg; server_resumed and the server's figures describe the proxy–origin leg and are not gated"

// RelaySince is the proxy's relay modes of the connections that started
// since base, up to the last boundary read: a connection's modes are
// counted once, when its relay starts, so a case whose connections open
// before its measured iterations (throughput) takes them over the whole
// case, not over the kept iterations.
func (m *Meter) RelaySince(base ProxySnapshot) (relay, fallbacks map[string]int64, ok bool) {
	if !m.hasLastPx || m.Back.proxyCounts {
		return nil, nil, false
	}
	return counts.Sub(m.lastPrx.Relay, base.Relay), counts.Sub(m.lastPrx.Fallbacks, base.Fallbacks), true
}
