package results_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// TestFieldNamesAreTheContract pins the JSON names docs/results.md promises:
// renaming a field breaks every results file already written.
func TestFieldNamesAreTheContract(t *testing.T) {
	b, err := json.Marshal(results.Record{})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	contract := []string{
		"name", "kind", "tls_version", "resume", "mutual", "concurrency", "key_type", "group",
		"transport", "handshakes", "errors", "resumed", "resumption_rate", "server_resumed",
		"mean_us", "error_us", "stddev_us", "median_us", "min_us", "max_us", "p50_us", "p90_us",
		"p99_us", "p999_us", "handshakes_per_sec", "client_cpu_us", "server_cpu_us",
		"alloc_bytes", "samples_us", "env",
	}
	for _, f := range contract {
		if _, ok := m[f]; !ok {
			t.Errorf("field %q missing from an encoded record", f)
		}
	}
	// Unknown values are null, never a guess.
	for _, f := range []string{"server_resumed", "error_us", "client_cpu_us", "server_cpu_us"} {
		if m[f] != nil {
			t.Errorf("zero record: %s = %v, want null", f, m[f])
		}
	}
	throughput := results.Record{BufferBytes: 16384, Cipher: "aes128gcm", KTLSTX: results.Bool(true), KTLSRX: results.Bool(false),
		MBps: results.Float(1), ClientCPUPct: results.Float(1), ServerCPUPct: results.Float(1)}
	b, _ = json.Marshal(throughput)
	m = nil
	json.Unmarshal(b, &m)
	// A case that failed a gate says so; one that passed says nothing.
	if _, ok := m["verdict"]; ok {
		t.Error("verdict present in a record that failed no gate")
	}
	for _, f := range []string{"cpus_available", "machine_busy", "other_cpu_share"} {
		if _, ok := m[f]; ok {
			t.Errorf("%s present in a record whose machine was not watched", f)
		}
	}
	throughput.SessionStore, throughput.Verdict = "tickets", "failed"
	throughput.CPUsAvailable, throughput.MachineBusy, throughput.OtherCPUShare = 2, results.Float(0.5), results.Float(0.1)
	b, _ = json.Marshal(throughput)
	m = nil
	json.Unmarshal(b, &m)
	for _, f := range []string{"buffer_bytes", "cipher", "ktls_tx", "ktls_rx", "mbps", "client_cpu_pct", "server_cpu_pct", "session_store", "verdict",
		"cpus_available", "machine_busy", "other_cpu_share"} {
		if _, ok := m[f]; !ok {
			t.Errorf("throughput field %q missing", f)
		}
	}
	b, _ = json.Marshal(results.Record{Verdict: "failed"})
	m = nil
	json.Unmarshal(b, &m)
	if m["verdict"] != "failed" {
		t.Errorf("verdict = %v, want \"failed\"", m["verdict"])
	}
}

func TestWriteDecodeRoundTrip(t *testing.T) {
	recs := []results.Record{
		{Name: "handshake/tls1.3/resume/c64", Kind: results.KindHandshake, TLSVersion: "1.3", Resume: true, Concurrency: 64,
			Handshakes: 1280, Resumed: 1280, ResumptionRate: 1, ServerResumed: results.Int(1280), MeanUS: 123.4, HandshakesPerSec: 8100,
			Iterations: 2, MinUS: 120, MaxUS: 126.8, MedianUS: 123.4, Errors: 1,
			ErrorUS: results.Float(5.5), SamplesUS: []float64{120, 126.8}, ErrorsByKind: map[string]int64{"reset": 1},
			Env: results.CurrentEnv()},
		{Name: "handshake/tls1.2/full/c1", Kind: results.KindHandshake, TLSVersion: "1.2", Concurrency: 1, Iterations: 1, SamplesUS: []float64{1},
			Handshakes: 128, MeanUS: 1, MedianUS: 1, MinUS: 1, MaxUS: 1, HandshakesPerSec: 1e6},
	}
	path := filepath.Join(t.TempDir(), "r.jsonl")
	w, err := results.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	got, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, recs) {
		t.Fatalf("round trip changed the records:\n got %+v\nwant %+v", got, recs)
	}
}

func TestDecodeErrorsNameTheLine(t *testing.T) {
	tests := map[string]string{
		validLine(t) + "not json\n":                    "line 2",
		"{\"hello\":1}\n":                              "line 1: not a tlsbench result",
		"{\"name\":\"a\",\"kind\":\"handshake\"} {}\n": "line 1: more than one JSON value",
	}
	keys := make([]string, 0, len(tests))
	for k := range tests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, in := range keys {
		_, err := results.Decode(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), tests[in]) {
			t.Errorf("Decode(%q) = %v, want an error containing %q", in, err, tests[in])
		}
	}
	if recs, err := results.Decode(bytes.NewReader(nil)); err != nil || len(recs) != 0 {
		t.Errorf("empty input: %v, %v", recs, err)
	}
}
