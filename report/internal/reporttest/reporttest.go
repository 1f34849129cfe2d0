package reporttest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tlsbench/tlsbench/results"
)

// LoadRecords reads a results file strictly: a field the record does not
// know is an error, so that testdata stays in step with results.Record.
func LoadRecords(t testing.TB, path string) []results.Record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs []results.Record
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var r results.Record
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

// CheckGolden compares got with the golden file, or with -update rewrites
// the file.
func CheckGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./report/ -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run with -update if the change is intended):\n%s", golden, LineDiff(string(want), string(got)))
	}
}

// LineDiff shows the first lines in which want and got differ.
func LineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var sb strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 10; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			shown++
			sb.WriteString("line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl + "\n")
		}
	}
	return sb.String()
}

// HS is a handshake record with the given per-iteration samples.
func HS(name string, samples ...float64) results.Record {
	r := results.Record{
		Name: name, Kind: results.KindHandshake, TLSVersion: "1.3", Concurrency: 1,
		Handshakes: int64(128 * len(samples)), Iterations: len(samples),
		SamplesUS: samples, AllocBytes: 20000,
	}
	if len(samples) > 0 {
		var sum float64
		for _, v := range samples {
			sum += v
		}
		r.MeanUS = sum / float64(len(samples))
	}
	return r
}

func Resumed(r results.Record, rate float64) results.Record {
	r.Resume = true
	r.Resumed = int64(math.Round(rate * float64(r.Handshakes)))
	r.ResumptionRate = rate
	return r
}

func TP(name string, mbps ...float64) []results.Record {
	var recs []results.Record
	for _, v := range mbps {
		recs = append(recs, results.Record{Name: name, Kind: results.KindThroughput, TLSVersion: "1.3", BufferBytes: 16384, MBps: results.Float(v)})
	}
	return recs
}

var TenSamples = []float64{100, 102, 99, 101, 103, 98, 100.5, 101.5, 99.5, 100.2}

func Shift(xs []float64, f float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * f
	}
	return out
}

// CostRecord is a record with every cost parameter set; a throughput
// record has its samples as MB/s values of one record each.
func CostRecord(throughput bool, samples []float64) results.Record {
	r := HS("case/x", samples...)
	r.KeyType, r.Group, r.Transport, r.SessionStore = "ecdsa-p256", "X25519", "tcp", "tickets"
	if throughput {
		r.Kind = results.KindThroughput
		r.Cipher, r.BufferBytes, r.Direction = "TLS_AES_128_GCM_SHA256", 16384, "upload"
		r.KTLSTX, r.KTLSRX = results.Bool(true), results.Bool(true)
		r.MBps = results.Float(1000 / samples[0])
		r.Extra = map[string]float64{"client_ktls_tx": 1, "client_ktls_rx": 1, "server_ktls_tx": 1, "server_ktls_rx": 1}
	}
	return r
}

// WithHandshake gives r the handshake figure hs (one value per sample).
func WithHandshake(r results.Record, hs ...float64) results.Record {
	r.SetHandshakeFigure(hs)
	return r
}

// WithParams is r with params set, resume among them.
func WithParams(r results.Record, params map[string]string) results.Record {
	r.Params = maps.Clone(params)
	r.Params["resume"] = map[bool]string{false: "off", true: "on"}[r.Resume]
	return r
}

// Hostile is text a hostile server (an alert's description, a
// certificate's subject) or a hostile results file can put in a record:
// a window title set by OSC, the screen cleared by CSI, the same by the
// C1 CSI, DEL, and bidirectional overrides and isolates that reorder
// what is shown.
const Hostile = "\x1b]0;owned\x07\x1b[2J\u009b31m\x7f\u202eexe.txt\u2066x\u2069\x00"

// HostileFile writes the records of testdata/results.jsonl with hostile
// text in every field a report shows as text, and reads them back as a
// results file is read.
func HostileFile(t *testing.T) []results.Record {
	t.Helper()
	recs := LoadRecords(t, ResultsFile)
	for i := range recs {
		r := &recs[i]
		r.Name += "/" + Hostile
		r.Notes = append(r.Notes, "the server said "+Hostile)
		if r.Errors > 0 {
			r.ErrorsByKind = map[string]int64{"alert: " + Hostile: r.Errors}
		}
		r.Target, r.Request = "127.0.0.1:1"+Hostile, "GET /"+Hostile
		r.Env.CPUModel, r.Env.Kernel = "cpu"+Hostile, "kernel"+Hostile
		r.Env.Peers = map[string]string{"peer" + Hostile: "1.0" + Hostile}
		if i == 1 {
			r.Verdict = "failed"
		}
	}
	var buf bytes.Buffer
	w := results.NewWriter(&buf)
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "hostile.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// rawControl is the first control character, C1 control, bidirectional
// control or byte that is not UTF-8 in out, newlines apart; "" if none.
func rawControl(out []byte) string {
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRune(out[i:])
		switch {
		case r == utf8.RuneError && n == 1,
			r < 0x20 && r != '\n', r >= 0x7f && r <= 0x9f,
			r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			lo, hi := max(i-30, 0), min(i+30, len(out))
			return string(out[lo:hi])
		}
		i += n
	}
	return ""
}

// CandidateSearches is findrate.jsonl with other answers: the full
// search's lower (it failed 2500/s, which the baseline met), the Resumed
// one's bracket inside the baseline's open one.
func CandidateSearches(t *testing.T) []results.Record {
	recs := LoadRecords(t, FindRateFile)
	for i := range recs {
		r := &recs[i]
		switch r.Name {
		case "handshake/tls1.3/full/find-rate":
			r.RateSustained, r.RateFailed = results.Float(2000), results.Float(2500)
		case "handshake/tls1.3/resume/find-rate":
			r.RateSustained, r.RateFailed, r.SearchLimit = results.Float(6000), results.Float(6500), ""
		}
	}
	return recs
}

var Update = flag.Bool("update", false, "rewrite the golden files in testdata")

// The results files the tests of every report package read, in
// report/testdata; the goldens of each package are in its own testdata.
var (
	ResultsFile = testdata("results.jsonl")
	// CandidateFile is results.jsonl changed case by case to exercise every
	// verdict: tls1.3/full/c1 20% faster, tls1.3/resume/c1 no longer resumed
	// (2x slower), tls1.2/full/c128 10% slower, tls1.2/resume/c128 the same
	// samples reordered (+512 B/hs), tls1.3/full/mutual/c8 2% slower within
	// the noise, tls1.3/full/c1/memory 3 samples (too few), throughput 1 vs 1;
	// tls1.3/resume/mutual/c8 dropped, tls1.3/resume/c8 and a 64k throughput
	// case added.
	CandidateFile = testdata("candidate.jsonl")
	// PairedFile is an interleaved run built to give every paired verdict:
	// tls1.3/full/c8 side b 2x slower; tls1.3/resume/c8 the same (A/A);
	// tls1.2/full/c8 4% slower with a side a2 whose A/A spread is about ±6%
	// (within noise); tls1.3/full/mutual/c8 1.5% slower with little noise
	// (within the 2% minimum effect); tls1.3/full/c1 4 pairs (too few);
	// tls1.3/full/c64 side a only; tls1.3/full/c128 12 against 11 samples and
	// tls1.2/resume/c8 with side b failed (not comparable). Every side a
	// slows down by a quarter in the middle third of the run, as a busy
	// machine would.
	PairedFile = testdata("paired.jsonl")
	// FindRateFile holds two open-loop cases and two searches for a
	// sustainable rate: one that narrowed its bracket over eight steps, one
	// that ended at the load generator's own limit (written by
	// testdata/genfindrate).
	FindRateFile = testdata("findrate.jsonl")
)

// testdata is the path of a file in report/testdata, two folders above
// this file, whichever package's test runs.
func testdata(name string) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("reporttest: no caller information to find report/testdata")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", name)
}

// Decoded is a copy of rec as a reader of its file decodes it, sharing
// nothing with it (Trim changes a record's maps).
func Decoded(t *testing.T, rec *results.Record) results.Record {
	t.Helper()
	b, err := results.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	r, err := results.DecodeLine(bytes.TrimSpace(b))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
