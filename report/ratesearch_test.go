package report

import (
	"path/filepath"
	"testing"
)

// findRateFile holds two open-loop cases and two searches for a
// sustainable rate: one that narrowed its bracket over eight steps, one
// that ended at the load generator's own limit (written by
// testdata/genfindrate).
const findRateFile = "testdata/findrate.jsonl"

func TestFindRateGolden(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, findRateFile)
	for _, f := range Formats() {
		if f == HTML {
			continue // its structure is checked by outline, below
		}
		t.Run(string(f), func(t *testing.T) {
			checkGolden(t, filepath.Join("testdata", "findrate."+string(f)+".golden"), render(t, f, recs))
		})
	}
}
