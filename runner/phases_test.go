package runner_test

import (
	"crypto/tls"
	"path/filepath"
	"testing"

	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
	"github.com/tlsbench/tlsbench/stats"
)

var clientPhases = []string{results.PhaseConnect, results.PhaseHandshake, results.PhaseFirstByte, results.PhaseTotal}
var serverPhases = []string{results.PhaseServerHandshake, results.PhaseServerKey, results.PhaseServerSessionStore}

// checkPhase checks that a phase is present, that its histogram decodes
// to its count, and that its percentiles are in order.
func checkPhase(t *testing.T, rec results.Record, name string) results.Phase {
	t.Helper()
	p, ok := rec.Phases[name]
	if !ok {
		t.Errorf("%s: phase %s missing (have %v)", rec.Name, name, rec.Phases)
		return p
	}
	if p.Count == 0 {
		return p
	}
	l, err := stats.DecodeLatency(p.Histogram)
	if err != nil || l.Count() != p.Count {
		t.Errorf("%s: phase %s histogram: %v, count %d, want %d", rec.Name, name, err, l.Count(), p.Count)
	}
	if !(p.P50US > 0 && p.P50US <= p.P90US && p.P90US <= p.P99US && p.P99US <= p.P999US && p.P999US <= p.MaxUS) {
		t.Errorf("%s: phase %s percentiles out of order: %+v", rec.Name, name, p)
	}
	return p
}

// TestPhasesOfChildServer: against the built-in server in its own
// process (and in this one, over memory pipes), every phase covers
// exactly the kept iterations' handshakes, warm-up and priming left out;
// the client's handshake lies within the case's latency; and the
// server's key manager works where it should: with the key cache off,
// a full handshake decrypts the key and a resumed one does not, and a
// TLS 1.3 resumption does not ask it for a certificate at all.
func TestPhasesOfChildServer(t *testing.T) {
	t.Parallel()
	p := smallPlan()
	p.Concurrency = []int{4}
	p.Handshakes = 32
	p.Iterations = 2
	p.Warmup = 1
	p.KeyCache = []bool{false}
	p.Transports = []string{runner.TransportTCP, runner.TransportMemory}
	useP12Identity(t, &p)
	recs := run(t, p)
	keyP50 := map[string]float64{} // by version and resume
	for _, rec := range recs {
		want := int64(p.Iterations * p.Handshakes)
		if rec.Handshakes != want || rec.Errors != 0 {
			t.Fatalf("%s: %d handshakes, %d errors; want %d and none", rec.Name, rec.Handshakes, rec.Errors, want)
		}
		for _, name := range append(clientPhases, results.PhaseServerHandshake) {
			if got := checkPhase(t, rec, name).Count; got != want {
				t.Errorf("%s: phase %s counts %d, want the kept iterations' %d handshakes", rec.Name, name, got, want)
			}
		}
		hs, total := rec.Phases[results.PhaseHandshake], rec.Phases[results.PhaseTotal]
		if hs.P50US > total.P50US || hs.P99US > total.P99US {
			t.Errorf("%s: the client's handshake (p50 %v, p99 %v µs) exceeds the latency it is part of (p50 %v, p99 %v µs)",
				rec.Name, hs.P50US, hs.P99US, total.P50US, total.P99US)
		}
		if total.P50US != rec.P50US || total.P99US != rec.P99US || total.Histogram != rec.Histogram {
			t.Errorf("%s: the total phase (%+v) is not the record's latency (p50 %v p99 %v)", rec.Name, total, rec.P50US, rec.P99US)
		}
		key := checkPhase(t, rec, results.PhaseServerKey)
		wantKey := want
		if rec.Resume && rec.TLSVersion == "1.3" {
			wantKey = 0 // the certificate comes from the session
		}
		if key.Count != wantKey {
			t.Errorf("%s: the key manager was timed in %d handshakes, want %d", rec.Name, key.Count, wantKey)
		}
		keyP50[rec.Transport+rec.TLSVersion+map[bool]string{true: "resume"}[rec.Resume]] = key.P50US
		store := checkPhase(t, rec, results.PhaseServerSessionStore)
		if rec.Resume && store.Count < want {
			t.Errorf("%s: %d session store operations, want at least one a resumed handshake (%d)", rec.Name, store.Count, want)
		}
	}
	// A full TLS 1.2 handshake decrypts the PKCS#12 key (key cache off),
	// a resumed one only chooses the certificate: the key manager's time
	// differs by the decryption, orders of magnitude.
	for _, tr := range []string{"tcp", "memory"} {
		if full, resumed := keyP50[tr+"1.2"], keyP50[tr+"1.2resume"]; !(full > resumed) {
			t.Errorf("%s: TLS 1.2 key manager p50 %v µs full, %v µs resumed: the full handshake's decryption should show", tr, full, resumed)
		}
	}
}

// TestPhasesOfExternalServer: nginx records the client's phases, and no
// server phase, since only the built-in server reports its own.
func TestPhasesOfExternalServer(t *testing.T) {
	t.Parallel()
	layout, err := pki.Init(pki.InitOptions{Dir: filepath.Join(t.TempDir(), "pki")})
	if err != nil {
		t.Fatal(err)
	}
	n := peers.NginxT(t, peers.NginxConfig{Cert: layout.ServerCerts[pki.ECDSAP256], Key: layout.ServerKeys[pki.ECDSAP256], Tickets: true})
	p := smallPlan()
	p.Versions = []uint16{tls.VersionTLS12, tls.VersionTLS13}
	p.Resume = []bool{false}
	p.Concurrency = []int{4}
	p.Handshakes = 16
	p.Target = runner.Target{Addr: n.Addr, CAFile: layout.RootCert, ServerName: "localhost", ALPN: []string{"http/1.1"}}
	for _, rec := range run(t, p) {
		for _, name := range clientPhases {
			if got := checkPhase(t, rec, name).Count; got != rec.Handshakes {
				t.Errorf("%s: phase %s counts %d, want %d", rec.Name, name, got, rec.Handshakes)
			}
		}
		for _, name := range serverPhases {
			if _, ok := rec.Phases[name]; ok {
				t.Errorf("%s: an external server has phase %s", rec.Name, name)
			}
		}
	}
}
