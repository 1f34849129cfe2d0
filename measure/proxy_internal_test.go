package measure

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/results"
)

// countingProxy is a proxy whose counts grow by step at every snapshot;
// fail makes the next snapshot fail.
type countingProxy struct {
	now  ProxySnapshot
	step ProxySnapshot
	fail error
}

func (p *countingProxy) Snapshot() (ProxySnapshot, error) {
	if p.fail != nil {
		err := p.fail
		p.fail = nil
		return ProxySnapshot{}, err
	}
	p.now = p.now.Add(p.step)
	p.now.HasCounts, p.now.HasCPU = true, true
	return p.now, nil
}

// TestMeterProxyKeptOnly: the proxy's figures are the sum of the kept
// iterations' spans, read at the same boundaries as the server's; a
// dropped iteration adds nothing, a counter that goes back makes them
// unknown, a failed read is the error.
func TestMeterProxyKeptOnly(t *testing.T) {
	t.Parallel()
	p := &countingProxy{step: ProxySnapshot{ClientHandshakes: 4, ClientResumed: 3, Mints: 1, MintHits: 2,
		CPU: time.Millisecond, Relay: map[string]int64{"client:user": 1, "origin:splice": 1}}}
	m := NewMeter(nil, p)
	for i := range 3 {
		m.Begin()
		sp := m.End()
		if i != 1 { // the second iteration is dropped
			m.Keep(sp)
		}
	}
	got, err := m.ProxyTotal()
	if err != nil {
		t.Fatal(err)
	}
	// Each span is one step (begin and end each add one).
	if !got.HasCounts || got.ClientHandshakes != 8 || got.ClientResumed != 6 || got.Mints != 2 || got.MintHits != 4 ||
		got.CPU != 2*time.Millisecond || got.Relay["client:user"] != 2 || got.Relay["origin:splice"] != 2 {
		t.Fatalf("proxy total over two kept spans = %+v", got)
	}

	back := &countingProxy{step: ProxySnapshot{Mints: -1, CPU: -time.Millisecond}}
	m = NewMeter(nil, back)
	m.Begin()
	m.Keep(m.End())
	got, _ = m.ProxyTotal()
	if got.HasCounts || got.HasCPU || !strings.Contains(strings.Join(m.Back.Notes(), " "), "proxy counts unknown") {
		t.Fatalf("counters that went back: %+v, notes %q", got, m.Back.Notes())
	}

	failing := &countingProxy{fail: errors.New("control channel closed")}
	m = NewMeter(nil, failing)
	m.Begin()
	m.Keep(m.End())
	if _, err := m.ProxyTotal(); err == nil || err.Error() != "control channel closed" {
		t.Fatalf("failed read: %v", err)
	}
}

// TestProxyFigures: CPU per unit, per-GB for throughput, counts; the
// resumption gate of the client leg fails on a proxy that resumed fewer
// (or more than possible) client handshakes than the client saw.
func TestProxyFigures(t *testing.T) {
	t.Parallel()
	p := &countingProxy{}
	rec := results.Record{Kind: results.KindThroughput}
	ProxyFigures(&rec, p, ProxySnapshot{HasCPU: true, CPU: 3 * time.Millisecond, HasCounts: true, Mints: 1,
		Relay: map[string]int64{"client:user": 1, "origin:user": 1}}, nil, 2)
	if *rec.ProxyCPUUS != 1500 || rec.Extra["proxy_cpu_s_per_gb"] != 1.5 || rec.ProxyRelay != "client:user,origin:user" || *rec.ProxyMints != 1 {
		t.Fatalf("figures: cpu %v, extra %v, relay %q", *rec.ProxyCPUUS, rec.Extra, rec.ProxyRelay)
	}
	rec = results.Record{}
	ProxyFigures(&rec, p, ProxySnapshot{}, errors.New("gone"), 1)
	if rec.ProxyCPUUS != nil || len(rec.Notes) != 1 || !strings.Contains(rec.Notes[0], "proxy counters unavailable: gone") {
		t.Fatalf("unavailable: %+v", rec)
	}
	rec = results.Record{}
	ProxyFigures(&rec, p, ProxySnapshot{HasCPU: true, CPU: time.Second}, nil, 0)
	if rec.ProxyCPUUS != nil || rec.ProxyMints != nil {
		t.Fatalf("nothing to divide over, no counts: %+v", rec)
	}

	hc := &HandshakeCase{Name: "c", Resume: true, Proxy: p}
	for _, tc := range []struct {
		proxy, client, errors int64
		fail                  bool
	}{{10, 10, 0, false}, {11, 10, 1, false}, {9, 10, 0, true}, {12, 10, 1, true}} {
		rec := results.Record{Resumed: tc.client, Errors: tc.errors}
		err := hc.ProxyResumedGate(&rec, ProxySnapshot{HasCounts: true, ClientResumed: tc.proxy}, nil)
		var pe *ProxyResumedError
		if got := errors.As(err, &pe); got != tc.fail || got != (rec.Verdict == VerdictFailed) {
			t.Errorf("proxy %d client %d failed %d: err %v verdict %q", tc.proxy, tc.client, tc.errors, err, rec.Verdict)
		}
	}
	if err := (&HandshakeCase{Resume: false, Proxy: p}).ProxyResumedGate(&results.Record{Resumed: 5}, ProxySnapshot{HasCounts: true}, nil); err != nil {
		t.Fatalf("a full-handshake case is not gated: %v", err)
	}
}
