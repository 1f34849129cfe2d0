package report

import "github.com/tlsbench/tlsbench/report/internal/reporttest"

// The helpers and results files the report packages' tests share.
var (
	loadRecords   = reporttest.LoadRecords
	checkGolden   = reporttest.CheckGolden
	hs            = reporttest.HS
	resumed       = reporttest.Resumed
	withHandshake = reporttest.WithHandshake
	withParams    = reporttest.WithParams
	hostileFile   = reporttest.HostileFile
	checkEscaped  = reporttest.CheckEscaped
	resultsFile   = reporttest.ResultsFile
	pairedFile    = reporttest.PairedFile
	findRateFile  = reporttest.FindRateFile
	lineDiff      = reporttest.LineDiff
	decoded       = reporttest.Decoded
)
