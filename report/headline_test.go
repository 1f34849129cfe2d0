package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// TestRatioTableOnTheHandshake: full/resumed is the handshake figure's
// ratio; the wall time's stands beside it, marked where it disagrees
// (a server whose answer after a resumed handshake stalls, as
// gnutls-serv's does, makes resumption look dearer per connection).
func TestRatioTableOnTheHandshake(t *testing.T) {
	t.Parallel()
	stalled := resumed(hs("handshake/tls1.3/resume/c8", 6300, 6400), 1)
	stalled.Params = map[string]string{"resume": "on", "concurrency": "8"}
	full := hs("handshake/tls1.3/full/c8", 3600, 3700)
	full.Params = map[string]string{"resume": "off", "concurrency": "8"}
	agree, agreeRes := hs("handshake/tls1.2/full/c1", 400, 410), resumed(hs("handshake/tls1.2/resume/c1", 100, 102), 1)
	agree.TLSVersion, agreeRes.TLSVersion = "1.2", "1.2"
	recs := []results.Record{
		withHandshake(full, 3400, 3500), withHandshake(stalled, 2400, 2500),
		withHandshake(agree, 380, 390), withHandshake(agreeRes, 95, 97),
	}
	var ptrs []*results.Record
	for i := range recs {
		ptrs = append(ptrs, &recs[i])
	}
	tbl, legend := ratioTable(ptrs)
	if tbl == nil || len(tbl.Rows) != 2 {
		t.Fatalf("table %v: want two pairs", tbl)
	}
	got := map[string][]string{}
	for _, row := range tbl.Rows {
		got[row[0]] = row[2:6]
	}
	if g := got["handshake/tls1.3/full/c8"]; strings.Join(g, " ") != "3450 2450 1.41x 0.57x!" {
		t.Errorf("stalled pair: %q, want the handshakes' 1.41x and the connections' 0.57x marked", g)
	}
	if g := got["handshake/tls1.2/full/c1"]; strings.Join(g, " ") != "385 96.0 4.01x 4.01x" {
		t.Errorf("agreeing pair: %q, want both ratios, unmarked", g)
	}
	if len(legend) != 2 || !strings.Contains(legend[1], "disagrees") || tbl.Cols[4].Unit != "handshake" || tbl.Cols[5].Unit != "connection" {
		t.Errorf("columns %v, legend %q: want each ratio named and the mark explained", tbl.Cols, legend)
	}
}

// TestHandshakeTableHeadline: the table's first columns are the
// handshake figure, the wall time per connection in its own column;
// beside records that have the figure, one without it is flagged.
func TestHandshakeTableHeadline(t *testing.T) {
	t.Parallel()
	now := withHandshake(hs("case/now", 64000, 64200), 5000, 5100)
	now.HandshakesPerSec = 15.6
	old := hs("case/old", 420, 424)
	var buf bytes.Buffer
	if err := Render(&buf, Table, []results.Record{now, old}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		`(?m)^ +per handshake ─+ +latency$`,
		`(?m)^name +mean +error +stddev +median +min +max +p50 +p99 +conn/s +wall +resumed`,
		`(?m)^ +µs +µs +µs +µs +µs +µs +µs +µs +µs/conn `,
		`(?m)^case/now +5050 .* 15\.6 +64100 `,
		`conn/s: whole connections per second`,
		`wall: measured without the handshake figure`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "case/old") && !strings.HasSuffix(line, " wall") || strings.HasPrefix(line, "case/now") && strings.HasSuffix(line, " wall") {
			t.Errorf("row %q: want only the record without the handshake figure flagged", line)
		}
	}
}
