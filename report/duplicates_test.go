package report

import (
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// TestDuplicates: the same case of the same run with the same samples is
// one record given again; another side, shard, run or set of samples is
// another record.
func TestDuplicates(t *testing.T) {
	t.Parallel()
	base := func() results.Record {
		r := hs("handshake/tls1.3/full/c1", 100, 101, 102)
		r.Env.Started = "2026-11-29T22:00:00Z"
		return r
	}
	with := func(f func(*results.Record)) results.Record {
		r := base()
		f(&r)
		return r
	}
	zero, one := 0, 1
	tests := []struct {
		name  string
		other results.Record
		dup   bool
	}{
		{"the same record", base(), true},
		{"other notes, same run and samples", with(func(r *results.Record) { r.Notes = []string{"x"} }), true},
		{"another run", with(func(r *results.Record) { r.Env.Started = "2026-11-29T23:00:00Z" }), false},
		{"another side", with(func(r *results.Record) { r.Side = results.SideB }), false},
		{"another shard", with(func(r *results.Record) { r.Shard = &one }), false},
		{"other samples", with(func(r *results.Record) { r.SamplesUS = []float64{100, 101, 103} }), false},
		{"another host", with(func(r *results.Record) { r.Env.Host = "pod-1" }), false},
		{"without a start, byte for byte", with(func(r *results.Record) { r.Env.Started = "" }), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := base()
			a.Shard = nil
			if tt.name == "another shard" {
				a.Shard = &zero
			}
			ds := Duplicates([]results.Record{a, tt.other})
			if got := len(ds) == 1; got != tt.dup {
				t.Errorf("Duplicates = %v, want a duplicate: %v", ds, tt.dup)
			}
			if tt.dup && (ds[0].Times != 2 || ds[0].Case != "handshake/tls1.3/full/c1" || ds[0].Started != "2026-11-29T22:00:00Z") {
				t.Errorf("Duplicates = %+v", ds)
			}
		})
	}
	unstarted := with(func(r *results.Record) { r.Env.Started = "" })
	if ds := Duplicates([]results.Record{unstarted, unstarted, unstarted}); len(ds) != 1 || ds[0].Times != 3 || ds[0].String() != "handshake/tls1.3/full/c1 (3 times)" {
		t.Errorf("records without a start given three times: %v", ds)
	}
}
