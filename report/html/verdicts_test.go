package html

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

// verdictRecords are the first four handshake records of the testdata
// (TLS 1.3 and TLS 1.2, full and resumed): TLS 1.3's resumed case failed
// a gate, TLS 1.2's full case was not run.
func verdictRecords(t *testing.T) []results.Record {
	t.Helper()
	recs := loadRecords(t, resultsFile)[:4]
	recs[1].Verdict = report.VerdictFailed
	recs[1].Notes = []string{"resumption fell below --min-resumption 0.99"}
	nr := &recs[2]
	*nr = results.Record{Name: nr.Name, Kind: nr.Kind, TLSVersion: nr.TLSVersion, Concurrency: nr.Concurrency,
		KeyType: nr.KeyType, Transport: nr.Transport, Env: nr.Env, Notes: []string{"not runnable: for this test"}}
	return recs
}

// TestFormatsWithoutVerdictLeaveOutFailedCases: the page keeps every
// case, and its charts say which they leave out.
func TestFormatsWithoutVerdictLeaveOutFailedCases(t *testing.T) {
	t.Parallel()
	recs := verdictRecords(t)
	var buf bytes.Buffer
	s := NewStream(&buf)
	for i := range recs {
		if err := s.Add(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if msg := s.LeftOut(); msg != "" {
		t.Errorf("LeftOut = %q, want nothing", msg)
	}
	s2 := buf.String()
	if !strings.Contains(s2, "Not drawn: the cases that failed a gate or were not run, whose figures are not results (see the results tables): handshake/tls1.3/resume/c1, handshake/tls1.2/full/c128.") {
		t.Errorf("html: the charts do not say which cases they leave out")
	}
	if strings.Contains(s2, "handshake/tls1.3/resume/c1: 163 µs") || strings.Contains(s2, "handshake/tls1.3/resume/c1: client 100%") {
		t.Errorf("html: the failed case is drawn as a result")
	}
}
