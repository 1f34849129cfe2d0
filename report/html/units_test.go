package html

import (
	"slices"
	"testing"
)

func TestAxisUnits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		q     *quantity
		kind  axisKind
		ticks []float64
		want  []string
	}{
		{"µs to ms", timeQ, axisLinear, []float64{0, 100000, 200000, 500000}, []string{"0", "100\u00a0ms", "200\u00a0ms", "500\u00a0ms"}},
		{"one unit per linear axis", timeQ, axisLinear, []float64{0, 250, 500, 750, 1000, 1250}, []string{"0", "0.25\u00a0ms", "0.5\u00a0ms", "0.75\u00a0ms", "1\u00a0ms", "1.25\u00a0ms"}},
		{"small stays µs", timeQ, axisLinear, []float64{0, 200, 400}, []string{"0", "200\u00a0µs", "400\u00a0µs"}},
		{"seconds", timeQ, axisLinear, []float64{0, 1e6, 2e6}, []string{"0", "1\u00a0s", "2\u00a0s"}},
		{"each tick its unit on a log axis", timeQ, axisLog10, []float64{500, 1000, 2000, 50000}, []string{"500\u00a0µs", "1\u00a0ms", "2\u00a0ms", "50\u00a0ms"}},
		{"MB/s to GB/s", mbpsQ, axisLinear, []float64{0, 1000, 2000}, []string{"0", "1\u00a0GB/s", "2\u00a0GB/s"}},
		{"bytes", bytesQ, axisLinear, []float64{0, 20000, 40000}, []string{"0", "20\u00a0KB", "40\u00a0KB"}},
	} {
		s := &scale{kind: c.kind, ticks: c.ticks, tickLabel: plainNum}
		s.useUnits(c.q)
		var got []string
		for _, v := range c.ticks {
			got = append(got, s.tickLabel(v))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: ticks %v read %q, want %q", c.name, c.ticks, got, c.want)
		}
	}
	if got := timeQ.num(1611); got != "1.61 ms" {
		t.Errorf("timeQ.num(1611) = %q, want 1.61 ms", got)
	}
}

func TestColumnUnits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		unit      string
		cells     []string
		wantUnit  string
		wantCells []string
	}{
		{"µs", []string{"751", "20959", "—"}, "ms", []string{"0.751", "21.0", "—"}},
		{"p50 / p99 µs", []string{"856 / 1754", "11.0 / 48000"}, "p50 / p99 ms", []string{"0.856 / 1.75", "0.011 / 48.0"}},
		{"µs/hs", []string{"430 ± 64.3", "1611 ± 240"}, "µs/hs", []string{"430 ± 64.3", "1611 ± 240"}},
		{"B/hs", []string{"38211", "70233"}, "KB/hs", []string{"38.2", "70.2"}},
		{"µs", []string{"12000", "100%"}, "µs", []string{"12000", "100%"}}, // not numbers only: as it is
		{"client", []string{"100000"}, "client", []string{"100000"}},
	} {
		unit, cells := scaleColumn(c.unit, c.cells)
		if unit != c.wantUnit || !slices.Equal(cells, c.wantCells) {
			t.Errorf("scaleColumn(%q, %q) = %q, %q; want %q, %q", c.unit, c.cells, unit, cells, c.wantUnit, c.wantCells)
		}
	}
}
