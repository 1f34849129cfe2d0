package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/tlsbench/tlsbench/results"
)

// verdictRecords are the first four handshake records of the testdata
// (TLS 1.3 and TLS 1.2, full and resumed): TLS 1.3's resumed case failed
// a gate, TLS 1.2's full case was not run.
func verdictRecords(t *testing.T) []results.Record {
	t.Helper()
	recs := loadRecords(t, resultsFile)[:4]
	recs[1].Verdict = VerdictFailed
	recs[1].Notes = []string{"resumption fell below --min-resumption 0.99"}
	nr := &recs[2]
	*nr = results.Record{Name: nr.Name, Kind: nr.Kind, TLSVersion: nr.TLSVersion, Concurrency: nr.Concurrency,
		KeyType: nr.KeyType, Transport: nr.Transport, Env: nr.Env, Notes: []string{"not runnable: for this test"}}
	return recs
}

// TestFormatsWithoutVerdictLeaveOutFailedCases: benchfmt has no place for
// a verdict, so a case that failed a gate or was not run is left out
// (benchstat would compare it as valid), and the stream says which; csv
// keeps a failed case (its verdict column says so) but not one that was
// not run. The formats for people and json keep every case.
func TestFormatsWithoutVerdictLeaveOutFailedCases(t *testing.T) {
	t.Parallel()
	recs := verdictRecords(t)
	tests := []struct {
		f        Format
		leftOut  []string // in the stream's message
		noneLeft bool
	}{
		{Benchfmt, []string{"benchfmt leaves out 2 cases whose figures are not results", "handshake/tls1.3/resume/c1 (failed a gate)", "handshake/tls1.2/full/c128 (not run)"}, false},
		{CSV, []string{"csv leaves out 1 case not run", "handshake/tls1.2/full/c128 (not run)"}, false},
		{Table, nil, true},
		{Markdown, nil, true},
		{JSON, nil, true},
	}
	for _, tt := range tests {
		t.Run(string(tt.f), func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			s, err := NewStream(&buf, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			for i := range recs {
				if err := s.Add(&recs[i]); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			msg := s.LeftOut()
			if tt.noneLeft && msg != "" {
				t.Errorf("LeftOut = %q, want nothing", msg)
			}
			if tt.f == CSV && strings.Contains(msg, "resume/c1") {
				t.Errorf("LeftOut = %q: csv shows the failed case with its verdict", msg)
			}
			for _, want := range tt.leftOut {
				if !strings.Contains(msg, want) {
					t.Errorf("LeftOut = %q, want %q in it", msg, want)
				}
			}
			checkVerdictOutput(t, tt.f, buf.Bytes())
		})
	}
}

// checkVerdictOutput checks what each format shows of verdictRecords.
func checkVerdictOutput(t *testing.T, f Format, out []byte) {
	t.Helper()
	switch f {
	case Benchfmt:
		names := map[string]bool{}
		r := benchfmt.NewReader(bytes.NewReader(out), "out")
		for r.Scan() {
			if res, ok := r.Result().(*benchfmt.Result); ok {
				names[string(res.Name.Full())] = true
			}
		}
		if len(names) != 2 || !names["Handshake/tls1.3/full/c1-2"] || !names["Handshake/tls1.2/resume/c128-2"] {
			t.Errorf("benchmarks %v, want only the two cases with results", names)
		}
	case CSV:
		rows, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		verdict := map[string]string{}
		col := -1
		for i, name := range rows[0] {
			if name == "verdict" {
				col = i
			}
		}
		for _, row := range rows[1:] {
			verdict[row[0]] = row[col]
		}
		if len(verdict) != 3 || verdict["handshake/tls1.3/resume/c1"] != "failed" || verdict["handshake/tls1.3/full/c1"] != "" {
			t.Errorf("csv verdicts %v, want three cases, the resumed TLS 1.3 one failed", verdict)
		}
	case Table, Markdown:
		for _, want := range []string{"FAILED", "not run"} {
			if !bytes.Contains(out, []byte(want)) {
				t.Errorf("%s: no %q in\n%s", f, want, out)
			}
		}
	}
}

// TestFullResumedTableFlagsCasesWithoutResult: a ratio of full to
// resumed handshakes of which a side failed a gate or was not run is
// flagged in its row, and one with a side not run has no ratio.
func TestFullResumedTableFlagsCasesWithoutResult(t *testing.T) {
	t.Parallel()
	fail := func(r *results.Record) { r.Verdict = VerdictFailed }
	skip := func(r *results.Record) {
		*r = results.Record{Name: r.Name, Kind: r.Kind, TLSVersion: r.TLSVersion, Resume: r.Resume, Concurrency: r.Concurrency,
			KeyType: r.KeyType, Transport: r.Transport, Group: r.Group, Env: r.Env}
	}
	tests := []struct {
		name         string
		full, resume func(*results.Record)
		wantFlag     string
		wantRatio    string
	}{
		{"both failed", fail, fail, "both FAILED", "4.90x"},
		{"resumed failed", nil, fail, "resumed FAILED", "4.90x"},
		{"full failed", fail, nil, "full FAILED", "4.90x"},
		{"full not run, resumed failed", skip, fail, "full not run, resumed FAILED", Null},
		{"none", nil, nil, "", "4.90x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			recs := loadRecords(t, resultsFile)[:2]
			for i, f := range []func(*results.Record){tt.full, tt.resume} {
				if f != nil {
					f(&recs[i])
				}
			}
			tab, _ := ratioTable([]*results.Record{&recs[0], &recs[1]})
			flagRatios(tab, []*results.Record{&recs[0], &recs[1]})
			row := tab.Rows[0]
			if row[4] != tt.wantRatio {
				t.Errorf("ratio %q, want %q", row[4], tt.wantRatio)
			}
			if NotRun(&recs[0]) && row[2] != Null {
				t.Errorf("full µs %q for a case not run, want %q", row[2], Null)
			}
			if tt.wantFlag == "" {
				if len(tab.Cols) != 7 {
					t.Errorf("columns %v: a flags column without a flag", tab.Cols)
				}
				return
			}
			if got := row[len(row)-1]; tab.Cols[len(tab.Cols)-1].Title != "flags" || got != tt.wantFlag {
				t.Errorf("row %q, want the flag %q last", row, tt.wantFlag)
			}
			var buf bytes.Buffer
			if err := Render(&buf, Table, recs); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), tt.wantFlag) {
				t.Errorf("the table does not show %q:\n%s", tt.wantFlag, buf.String())
			}
		})
	}
}
