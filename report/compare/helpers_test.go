package compare

import (
	"bytes"
	"testing"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/report/internal/reporttest"
	"github.com/tlsbench/tlsbench/results"
)

// The helpers and results files the report packages' tests share.
var (
	loadRecords       = reporttest.LoadRecords
	checkGolden       = reporttest.CheckGolden
	hs                = reporttest.HS
	resumed           = reporttest.Resumed
	shift             = reporttest.Shift
	tenSamples        = reporttest.TenSamples
	costRecord        = reporttest.CostRecord
	withHandshake     = reporttest.WithHandshake
	withParams        = reporttest.WithParams
	hostileFile       = reporttest.HostileFile
	checkEscaped      = reporttest.CheckEscaped
	resultsFile       = reporttest.ResultsFile
	pairedFile        = reporttest.PairedFile
	findRateFile      = reporttest.FindRateFile
	candidateFile     = reporttest.CandidateFile
	candidateSearches = reporttest.CandidateSearches
	tp                = reporttest.TP
)

// render writes recs in format f, as report.Render does.
func render(t testing.TB, f report.Format, recs []results.Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := report.Render(&buf, f, recs); err != nil {
		t.Fatalf("Render(%s): %v", f, err)
	}
	return buf.Bytes()
}
