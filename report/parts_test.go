package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// TestPartsTable: a mix's record gets a row per part with its
// handshakes and each side's CPU per handshake ("-" where unknown);
// records without parts get no table.
func TestPartsTable(t *testing.T) {
	t.Parallel()
	mix := results.Record{Name: "handshake/tls1.3/mix80/c8", Kind: results.KindHandshake, Handshakes: 100, Iterations: 1,
		ResumeRatio: results.Float(0.8), Parts: map[string]results.PartFigures{
			results.PartFull:    {Handshakes: 20, ClientCPUUS: results.Float(623), ServerCPUUS: results.Float(461)},
			results.PartResumed: {Handshakes: 80, ClientCPUUS: results.Float(477)},
		}}
	plain := results.Record{Name: "handshake/tls1.3/full/c8", Kind: results.KindHandshake, Handshakes: 100, Iterations: 1}
	var buf bytes.Buffer
	if err := Render(&buf, Table, []results.Record{plain, mix}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	squeezed := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"Parts of a mix", "mix80/c8 full 20 623 461", "mix80/c8 resumed 80 477 " + Null} {
		if !strings.Contains(squeezed, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	buf.Reset()
	if err := Render(&buf, Table, []results.Record{plain}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "Parts of a mix") {
		t.Errorf("a run without a mix has a parts table:\n%s", buf.String())
	}
}
