package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/report/internal/reporttest"
	"github.com/tlsbench/tlsbench/results"
)

// readmeSample is what README.md shows of the default run: the TLS 1.3
// rows at concurrency 1 and 128 of testdata/default.jsonl, as an
// 80-column terminal gets their Handshakes table.
var readmeSample = struct {
	readme, begin, end string
	cases              []string
}{
	readme: filepath.Join("..", "README.md"),
	begin:  "<!-- sample output of tlsbench run: begin -->\n```text\n",
	end:    "```\n<!-- sample output of tlsbench run: end -->",
	cases: []string{
		"handshake/tls1.3/full/c1", "handshake/tls1.3/full/c128",
		"handshake/tls1.3/resume/c1", "handshake/tls1.3/resume/c128",
	},
}

// The README's sample output is the real output of the current code for
// a real run (the default.jsonl of the goldens), so that what a reader is
// taught to read is what the tool prints. -update rewrites the README's
// block.
func TestReadmeSampleIsCurrent(t *testing.T) {
	t.Parallel()
	var recs []results.Record
	for _, r := range loadRecords(t, defaultFile) {
		for _, name := range readmeSample.cases {
			if r.Name == name {
				recs = append(recs, r)
			}
		}
	}
	if len(recs) != len(readmeSample.cases) {
		t.Fatalf("%s has %d of the sample's %d cases", defaultFile, len(recs), len(readmeSample.cases))
	}
	out := renderWidth(t, recs, 80)
	start := strings.Index(out, "Handshakes\n")
	if start < 0 {
		t.Fatalf("no Handshakes table:\n%s", out)
	}
	block := out[start:]
	if end := strings.Index(block, "\n\n"); end >= 0 {
		block = block[:end+1]
	}

	data, err := os.ReadFile(readmeSample.readme)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	i := strings.Index(readme, readmeSample.begin)
	j := strings.Index(readme, readmeSample.end)
	if i < 0 || j < i {
		t.Fatalf("%s: no sample block between %q and %q", readmeSample.readme, readmeSample.begin, readmeSample.end)
	}
	i += len(readmeSample.begin)
	if *reporttest.Update {
		readme = readme[:i] + block + readme[j:]
		if err := os.WriteFile(readmeSample.readme, []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := readme[i:j]; got != block {
		t.Errorf("README.md's sample output is not what the table prints now (go test ./report -run TestReadmeSample -update rewrites it):\n%s", lineDiff(got, block))
	}
}
