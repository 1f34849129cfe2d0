package results_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// validRecord is a consistent resumed handshake record with every field a
// run writes.
func validRecord() results.Record {
	return results.Record{
		Name: "handshake/tls1.3/resume/c8", Kind: results.KindHandshake, TLSVersion: "1.3", Resume: true,
		Concurrency: 8, KeyType: "ecdsa-p256", Group: "X25519", Transport: "tcp",
		Handshakes: 1000, Errors: 2, ErrorsByKind: map[string]int64{"reset": 2},
		Resumed: 990, ResumptionRate: 0.99, ServerResumed: results.Int(990),
		Iterations: 3, MeanUS: 200, ErrorUS: results.Float(10), StddevUS: 5, MedianUS: 201, MinUS: 195, MaxUS: 204,
		P50US: 180, P90US: 250, P99US: 400, P999US: 500, HandshakesPerSec: 5000,
		ClientCPUUS: results.Float(90), AllocBytes: 20000, SamplesUS: []float64{195, 201, 204},
		Env: results.Env{GoVersion: "go1.26.0", GOMAXPROCS: 2},
	}
}

func validLine(t *testing.T) string {
	t.Helper()
	rec := validRecord()
	b, err := results.Marshal(&rec)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// edit returns the valid line with fields set (or, for a nil value,
// deleted).
func edit(t *testing.T, set map[string]any) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(validLine(t)), &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range set {
		if v == deleteField {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

const deleteField = "\x00delete"

// TestDecodeRefusesUntrustworthyRecords: a record missing a required
// field, holding null where a value is always known, or contradicting
// itself is refused with the line, the case and the field, never read as
// zeros.
func TestDecodeRefusesUntrustworthyRecords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"name and kind only", `{"name":"x","kind":"handshake"}`, `line 1 (x): incomplete record: required fields "tls_version", "resume", "mutual", "concurrency", "key_type" and 23 more are missing`},
		{"one missing", edit(t, map[string]any{"mean_us": deleteField}), `line 1 (handshake/tls1.3/resume/c8): incomplete record: required field "mean_us" is missing`},
		{"missing nullable", edit(t, map[string]any{"server_resumed": deleteField}), `required field "server_resumed" is missing`},
		{"missing env", edit(t, map[string]any{"env": deleteField}), `required field "env" is missing`},
		{"null mean", edit(t, map[string]any{"mean_us": nil}), `field "mean_us" is null, but it always has a value`},
		{"null handshakes", edit(t, map[string]any{"handshakes": nil}), `field "handshakes" is null`},
		{"null resume", edit(t, map[string]any{"resume": nil}), `field "resume" is null`},
		{"null env field", edit(t, map[string]any{"env": map[string]any{"gomaxprocs": nil}}), `field "env.gomaxprocs" is null`},
		{"null iterations (not core)", edit(t, map[string]any{"iterations": nil}), `field "iterations" is null`},
		{"resume off but resumed", edit(t, map[string]any{"resume": false}), `contradictory record: resume is false but resumed is 990`},
		{"rate disagrees", edit(t, map[string]any{"resumption_rate": 0.5}), `resumption_rate 0.5 disagrees with resumed/handshakes = 990/1000 = 0.9900`},
		{"rate above 1", edit(t, map[string]any{"resumption_rate": 1.5}), `resumption_rate 1.5 is not between 0 and 1`},
		{"resumed above handshakes", edit(t, map[string]any{"resumed": 1001, "resumption_rate": 1}), `resumed (1001) is more than handshakes (1000)`},
		{"server resumed above connections", edit(t, map[string]any{"server_resumed": 1003}), `server_resumed (1003) is more than handshakes and errors together (1000 + 2)`},
		{"negative handshakes", edit(t, map[string]any{"handshakes": -5, "resumed": 0, "resumption_rate": 0}), `handshakes is -5: a count cannot be negative`},
		{"negative errors", edit(t, map[string]any{"errors": -1, "errors_by_kind": nil}), `errors is -1: a count cannot be negative`},
		{"negative server resumed", edit(t, map[string]any{"server_resumed": -1}), `server_resumed is -1`},
		{"errors by kind", edit(t, map[string]any{"errors": 3}), `errors is 3 but errors_by_kind adds up to 2`},
		{"negative cpu", edit(t, map[string]any{"client_cpu_us": -90}), `client_cpu_us is -90: it cannot be negative`},
		{"negative sample", edit(t, map[string]any{"samples_us": []float64{195, -1, 204}}), `samples_us[1] is -1`},
		{"samples vs iterations", edit(t, map[string]any{"iterations": 5}), `iterations is 5 but samples_us holds 3 values`},
		{"min above max", edit(t, map[string]any{"min_us": 300}), `min_us 300 is more than max_us 204`},
		{"mean outside", edit(t, map[string]any{"mean_us": 2000}), `mean_us 2000 is outside min_us..max_us`},
		{"unknown kind", edit(t, map[string]any{"kind": "quic"}), `kind "quic": want "handshake", "throughput", "rate-step" or "rate-search"`},
		// Figures that their own samples contradict.
		{"mean not of samples", edit(t, map[string]any{"mean_us": 203}), `mean_us is 203 but the samples in samples_us give 200`},
		{"median not of samples", edit(t, map[string]any{"median_us": 196}), `median_us is 196 but the samples in samples_us give 201`},
		{"min not of samples", edit(t, map[string]any{"min_us": 190}), `min_us is 190 but the samples in samples_us give 195`},
		{"max not of samples", edit(t, map[string]any{"max_us": 210}), `max_us is 210 but the samples in samples_us give 204`},
		{"rounded too far", edit(t, map[string]any{"mean_us": 200.01}), `mean_us is 200.01 but the samples`},
		{"empty samples", edit(t, map[string]any{"samples_us": []float64{}}), `iterations is 3 but samples_us holds 0 values`},
		// The handshake figure: one value per iteration, within each
		// iteration's wall time, its statistics its own.
		{"handshake above wall", edit(t, map[string]any{"handshake_samples_us": []float64{150, 220, 150}, "handshake_mean_us": 173.333, "handshake_median_us": 150,
			"handshake_min_us": 150, "handshake_max_us": 220, "handshake_stddev_us": 40}), `handshake_samples_us[1] is 220, more than the iteration's wall time per handshake 201`},
		{"handshake samples vs iterations", edit(t, map[string]any{"handshake_samples_us": []float64{150, 150}}), `handshake_samples_us holds 2 values but iterations is 3`},
		{"handshake mean not of samples", edit(t, map[string]any{"handshake_samples_us": []float64{150, 151, 152}, "handshake_mean_us": 160, "handshake_median_us": 151,
			"handshake_min_us": 150, "handshake_max_us": 152, "handshake_stddev_us": 1}), `handshake_mean_us is 160 but the samples in handshake_samples_us give 151`},
		{"no handshakes but a mean", edit(t, map[string]any{"handshakes": 0, "resumed": 0, "resumption_rate": 0, "server_resumed": 0, "samples_us": nil}), `handshakes is 0 but the case has 3 iterations and a mean of 200 µs`},
		{"rate too high", edit(t, map[string]any{"handshakes_per_sec": 9000}), `handshakes_per_sec 9000 cannot be: samples_us of 195 to 204 µs per handshake allow 4902 to 5128`},
		{"rate too low", edit(t, map[string]any{"handshakes_per_sec": 100}), `handshakes_per_sec 100 cannot be`},
		{"rate zero", edit(t, map[string]any{"handshakes_per_sec": 0}), `handshakes_per_sec 0 cannot be`},
		{"busy above 1", edit(t, map[string]any{"machine_busy": 1.2, "cpus_available": 2}), `machine_busy 1.2 is not between 0 and 1`},
		{"other share negative", edit(t, map[string]any{"other_cpu_share": -0.1, "cpus_available": 2}), `other_cpu_share -0.1 is not between 0 and 1`},
		{"negative cpus", edit(t, map[string]any{"cpus_available": -1}), `cpus_available is -1: a count cannot be negative`},
		{"negative listen overflows", edit(t, map[string]any{"listen_overflows": -3, "listen_drops": 0}), `listen_overflows is -3: a count cannot be negative`},
		{"no concurrency", edit(t, map[string]any{"concurrency": 0}), `concurrency is 0: a case runs at least one connection at a time`},
		{"rate and concurrency", edit(t, map[string]any{"rate_target": 2000}), `rate_target 2000 with concurrency 8: an open-loop case has a rate above 0 and no concurrency`},
		{"rate target zero", edit(t, map[string]any{"rate_target": 0, "concurrency": 0}), `rate_target 0 with concurrency 0`},
		{"tls version", edit(t, map[string]any{"tls_version": "1.1"}), `tls_version "1.1": want "1.2" or "1.3"`},
		{"tls version spelled", edit(t, map[string]any{"tls_version": "TLS1.3"}), `tls_version "TLS1.3"`},
		{"bad histogram", edit(t, map[string]any{"histogram": "HISTFAAAAB"}), `histogram is not a latency histogram tlsbench writes`},
		{"negative phase count", edit(t, map[string]any{"phases": map[string]any{"connect": map[string]any{"count": -1}}}), `phases.connect.count is -1`},
		{"phase out of order", edit(t, map[string]any{"phases": map[string]any{"handshake": map[string]any{"count": 3, "p50_us": 9, "p90_us": 5, "p99_us": 9, "p999_us": 9, "max_us": 9}}}),
			`phases.handshake: p50_us, p90_us, p99_us, p999_us and max_us ([9 5 9 9 9]) are not in order`},
		{"phase histogram", edit(t, map[string]any{"phases": map[string]any{"total": map[string]any{"count": 1, "p50_us": 1, "p90_us": 1, "p99_us": 1, "p999_us": 1, "max_us": 1, "histogram": "HISTFAAAAB"}}}),
			`phases.total.histogram is not a latency histogram`},
		{"phase count vs histogram", edit(t, map[string]any{"phases": map[string]any{"total": map[string]any{"count": 2, "p50_us": 1, "p90_us": 1, "p99_us": 1, "p999_us": 1, "max_us": 1, "histogram": oneLatency(t)}}}),
			`phases.total.count is 2 but its histogram holds 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			recs, err := results.Decode(strings.NewReader(tt.in))
			if err == nil {
				t.Fatalf("accepted %s as %+v", tt.in, recs)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "line 1 ") {
				t.Errorf("error %q, want one on line 1 containing %q", err, tt.want)
			}
		})
	}
}

// TestDecodeAcceptsNullsAndRounding: null where a value may be unknown,
// a rate rounded to a few decimals and a record of a run with no
// iterations are all legal.
func TestDecodeAcceptsNullsAndRounding(t *testing.T) {
	t.Parallel()
	for name, in := range map[string]string{
		"valid":          validLine(t),
		"unknown values": edit(t, map[string]any{"server_resumed": nil, "error_us": nil, "client_cpu_us": nil, "server_cpu_us": nil, "samples_us": nil}),
		// A resumption the server finished on a connection that then
		// failed on the client's side.
		"server resumed a failed connection": edit(t, map[string]any{"server_resumed": 1002}),
		"rounded rate":                       edit(t, map[string]any{"handshakes": 3, "resumed": 2, "resumption_rate": 0.6667, "errors": 0, "errors_by_kind": nil, "server_resumed": 2}),
		"unknown new fields":                 edit(t, map[string]any{"some_future_field": 1, "ktls_tx": nil}),
		"statistics rounded":                 edit(t, map[string]any{"samples_us": []float64{195.0004, 201, 204.0001}}),
		"rate at its bounds":                 edit(t, map[string]any{"handshakes_per_sec": 1e6 / 195}),
		"machine load":                       edit(t, map[string]any{"machine_busy": 1, "other_cpu_share": 0, "cpus_available": 2}),
		"listen queue":                       edit(t, map[string]any{"listen_overflows": 766, "listen_drops": 770}),
		// Open loop: no concurrency, and samples that are latencies
		// from the intended start, not wall time per handshake.
		"open loop":     edit(t, map[string]any{"concurrency": 0, "rate_target": 200, "handshakes_per_sec": 200}),
		"no iterations": edit(t, map[string]any{"handshakes": 0, "resumed": 0, "resumption_rate": 0, "server_resumed": 0, "iterations": 0, "samples_us": nil, "mean_us": 0, "median_us": 0, "min_us": 0, "max_us": 0, "error_us": nil, "handshakes_per_sec": 0, "errors": 2}),
	} {
		if _, err := results.Decode(strings.NewReader(in)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// oneLatency is an encoded histogram of one latency.
func oneLatency(t *testing.T) string {
	t.Helper()
	l := stats.NewLatency()
	l.Record(time.Millisecond)
	h, err := l.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return h
}
