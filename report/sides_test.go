package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// TestReportKeepsSidesApart: the report of an interleaved run names each
// record's side in every format, and never pairs or merges two sides.
func TestReportKeepsSidesApart(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, pairedFile)
	want := map[Format][]string{
		Table:    {"handshake/tls1.3/full/c8 [a] ", "handshake/tls1.3/full/c8 [b] ", "handshake/tls1.2/full/c8 [a2] ", "[a]: the built-in server; [b]: self"},
		Markdown: {"| handshake/tls1.3/full/c8 [b] |", "| handshake/tls1.2/full/c8 [a2] |"},
		CSV:      {",side,versus,target_error,stopped_by,", ",b,self,,iterations,"},
		Benchfmt: {"BenchmarkHandshake/tls1.3/full/c8/side=a-2 ", "BenchmarkHandshake/tls1.3/full/c8/side=b-2 ", "BenchmarkHandshake/tls1.2/full/c8/side=a2-2 "},
		JSON:     {`"side":"a2"`},
	}
	for f, wants := range want {
		out := string(render(t, f, recs))
		for _, w := range wants {
			if !strings.Contains(out, w) {
				t.Errorf("%s lacks %q", f, w)
			}
		}
	}

	// Full and resumed cases pair within a side only.
	table := string(render(t, Table, recs))
	pair := regexp.MustCompile(`(?m)^(handshake/\S+) \[(a2?|b)\] +(handshake/\S+) \[(a2?|b)\] `)
	found := pair.FindAllStringSubmatch(table, -1)
	if len(found) == 0 {
		t.Fatalf("no full/resumed pairs in:\n%s", table)
	}
	for _, m := range found {
		if m[2] != m[4] {
			t.Errorf("pairs side %s of %s with side %s of %s", m[2], m[1], m[4], m[3])
		}
	}
}

// TestTargetErrorReported: with a target error, the error cell shows the
// precision reached and marks it above the target, and a footnote lists
// the cases that stopped before reaching it.
func TestTargetErrorReported(t *testing.T) {
	t.Parallel()
	two := 0.02
	recs := loadRecords(t, resultsFile)[:3]
	reached, short, capped := &recs[0], &recs[1], &recs[2]
	for _, r := range []*results.Record{reached, short, capped} {
		r.TargetError = &two
	}
	// results.jsonl's handshake figures: 398.54 ± 18.684 (4.7%),
	// 81.29 ± 9.391 (11.6%).
	reached.HandshakeErrorUS = results.Float(4.1)
	reached.StoppedBy = results.StoppedTargetError
	short.StoppedBy = results.StoppedCaseTime
	capped.StoppedBy = results.StoppedIterationCap
	out := string(render(t, Table, recs))
	for _, w := range []string{
		"4.10 (1.0%) ",
		"9.39 (11.6%)! ",
		"Target error: 1 of 3 cases reached ±2%; 2 did not (more --case-time; 1 stopped otherwise, see Notes)",
		"! marks one above its target error",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("table lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, recs[0].Name+": ") {
		t.Errorf("the case that reached its target is listed:\n%s", out)
	}

	// Without a target, nothing changes.
	plain := string(render(t, Table, loadRecords(t, resultsFile)[:3]))
	if strings.Contains(plain, "Target error") || strings.Contains(plain, "%)") {
		t.Errorf("a report without targets shows them:\n%s", plain)
	}
}

// TestTargetErrorInterleaved: in an interleaved run the target was held
// to the ratio of side b to side a, so that is what side b's cell shows.
func TestTargetErrorInterleaved(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, pairedFile)[:2] // tls1.3/full/c8 [a] and [b], 2x
	two := 0.002
	for i := range recs {
		recs[i].TargetError = &two
		recs[i].StoppedBy = results.StoppedCaseTime
	}
	out := string(render(t, Table, recs))
	for _, w := range []string{"% of b/a)!", "Target error: 0 of 1 sides reached ±0.2%; 1 did not (more --case-time)"} {
		if !strings.Contains(out, w) {
			t.Errorf("table lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "handshake/tls1.3/full/c8 [a]: ") {
		t.Errorf("side a listed on its own:\n%s", out)
	}
	// Side a's row is not marked by its own error: the target was the
	// ratio's, which side b's row carries.
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "handshake/tls1.3/full/c8 [a]") && strings.Contains(line, "%)") {
			t.Errorf("side a's row judged by its own error: %q", line)
		}
	}
}
