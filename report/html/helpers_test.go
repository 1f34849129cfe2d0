package html

import (
	"testing"

	"github.com/tlsbench/tlsbench/report/compare"
	"github.com/tlsbench/tlsbench/report/internal/reporttest"
)

// The helpers and results files the report packages' tests share.
var (
	loadRecords       = reporttest.LoadRecords
	checkGolden       = reporttest.CheckGolden
	hs                = reporttest.HS
	hostileFile       = reporttest.HostileFile
	checkEscaped      = reporttest.CheckEscaped
	resultsFile       = reporttest.ResultsFile
	pairedFile        = reporttest.PairedFile
	findRateFile      = reporttest.FindRateFile
	candidateFile     = reporttest.CandidateFile
	decoded           = reporttest.Decoded
	candidateSearches = reporttest.CandidateSearches
	hostile           = reporttest.Hostile
)

// pairedTestdata is the paired comparison of pairedFile.
func pairedTestdata(t testing.TB, opts compare.CompareOptions) *compare.Comparison {
	t.Helper()
	c, err := compare.ComparePaired(loadRecords(t, pairedFile), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
