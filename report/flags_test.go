package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// TestTableFlags: the table and markdown say that p99 is per handshake
// while the summary statistics are per iteration, and flag (with a
// legend) a failed case, a case with errors and a noisy one; a clean run
// gets no flags column.
func TestTableFlags(t *testing.T) {
	t.Parallel()
	mk := func(name string, mean, errUS float64, errs int64, verdict string) results.Record {
		r := hs(name, mean, mean)
		r.ErrorUS, r.Errors, r.Verdict = results.Float(errUS), errs, verdict
		return r
	}
	recs := []results.Record{
		mk("case/clean", 100, 10, 0, ""), // exactly 10%: not noisy
		mk("case/noisy", 100, 10.5, 0, ""),
		mk("case/failed", 100, 1, 0, "failed"),
		mk("case/errors", 100, 1, 4, ""),
		mk("case/all", 100, 50, 4, "failed"),
	}
	tp := results.Record{Name: "tp/failed", Kind: results.KindThroughput, MBps: results.Float(10), Verdict: "failed"}
	tpNoisy := results.Record{Name: "tp/noisy", Kind: results.KindThroughput, MBps: results.Float(10), MeanUS: 100000,
		ErrorUS: results.Float(70000), Iterations: 2, SamplesUS: []float64{50000, 150000}}
	// A case that could not run has no figures: they show as unknown,
	// never as zeros, and the row says why.
	notRun := results.Record{Name: "case/notrun", Kind: results.KindHandshake, TLSVersion: "1.2", Concurrency: 8,
		Notes: []string{"not runnable: ..."}}
	recs = append(recs, tp, tpNoisy, notRun)
	for _, f := range []Format{Table, Markdown} {
		var buf bytes.Buffer
		if err := Render(&buf, f, recs); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		rows := map[string]string{}
		for _, line := range strings.Split(out, "\n") {
			for _, r := range recs {
				if strings.HasPrefix(strings.TrimLeft(line, "| "), r.Name+" ") {
					rows[r.Name] = line
				}
			}
		}
		want := map[string]string{"case/clean": "", "case/noisy": "noisy", "case/failed": "FAILED", "case/errors": "errors", "case/all": "FAILED errors noisy", "tp/failed": "FAILED",
			"tp/noisy": "noisy", "case/notrun": "not run"}
		for name, flags := range want {
			row := strings.TrimRight(strings.TrimSpace(rows[name]), " |")
			if flags == "" {
				if strings.HasSuffix(row, "noisy") || strings.HasSuffix(row, "FAILED") || strings.HasSuffix(row, "errors") {
					t.Errorf("%s: %s flagged: %q", f, name, row)
				}
				continue
			}
			if !strings.HasSuffix(row, flags) {
				t.Errorf("%s: row of %s = %q, want it to end in flags %q", f, name, row, flags)
			}
			if name == "case/notrun" && (strings.Contains(row, " 0 ") || strings.Count(row, "—") < 10) {
				t.Errorf("%s: row of a case that did not run shows figures: %q", f, row)
			}
		}
		for _, w := range []string{
			"per handshake: of connect + TLS handshake", "an inverse throughput, not a latency", "latency: p50, p99 of single handshakes",
			"FAILED: the case failed a gate", "errors: some connections failed", "noisy: the error is above the case's target error",
		} {
			if !strings.Contains(out, w) {
				t.Errorf("%s lacks %q:\n%s", f, w, out)
			}
		}
	}
	// Clean results: no flags column, no legend, but the note on what
	// the columns measure.
	var buf bytes.Buffer
	Render(&buf, Table, recs[:1])
	if strings.Contains(buf.String(), "flags") || !strings.Contains(buf.String(), "an inverse throughput") {
		t.Errorf("clean table:\n%s", buf.String())
	}
}

// TestCSVCarriesEveryScalarField: every scalar field of a record has its
// csv column, so that a field added to the results file is not silently
// missing from spreadsheets.
func TestCSVCarriesEveryScalarField(t *testing.T) {
	t.Parallel()
	have := map[string]bool{}
	for _, c := range csvColumns {
		have[c.name] = true
	}
	check := func(typ reflect.Type, prefix string) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			k := f.Type.Kind()
			if k == reflect.Pointer {
				k = f.Type.Elem().Kind()
			}
			switch k {
			case reflect.Slice, reflect.Map, reflect.Struct:
				continue // left to the json format
			}
			if name == "histogram" || strings.HasSuffix(name, "_histogram") {
				continue // an encoded blob, left to the json format
			}
			if !have[prefix+name] {
				t.Errorf("no csv column for %s%s", prefix, name)
			}
		}
	}
	check(reflect.TypeOf(results.Record{}), "")
	check(reflect.TypeOf(results.Env{}), "env.")
}
