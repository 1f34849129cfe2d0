package report

import (
	"slices"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// Notes that say the same of several cases are one line naming them;
// those that differ in numbers give their range; an address or a name
// with digits is not a number.
func TestNotesGrouped(t *testing.T) {
	t.Parallel()
	rec := func(name string, notes ...string) results.Record {
		r := hs(name, 100, 101)
		r.Notes = notes
		return r
	}
	recs := []results.Record{
		rec("handshake/tls1.3/full/c1", "other load on the machine: other processes took 18% of the 2 CPU(s)", "stopped by --case-time 3s after 6 of 20 iterations"),
		rec("handshake/tls1.3/full/c8", "other load on the machine: other processes took 66% of the 2 CPU(s)", "target 127.0.0.1:8443 answered late"),
		rec("handshake/tls1.3/resume/c1", "other load on the machine: other processes took 40.5% of the 2 CPU(s)", "target 127.0.0.1:9443 answered late"),
		rec("handshake/tls1.2/full/c1", "group x25519 negotiated", "stopped by --case-time 3s after 6 of 20 iterations"),
		rec("handshake/tls1.2/resume/c1", "group x448 negotiated"),
	}
	got := noteItems(recs)
	want := []string{
		"3 cases (handshake/tls1.3/*): other load on the machine: other processes took 18-66% of the 2 CPU(s)",
		"2 cases (handshake/tls1.3/full/c1, handshake/tls1.2/full/c1): stopped by --case-time 3s after 6 of 20 iterations",
		"handshake/tls1.3/full/c8: target 127.0.0.1:8443 answered late",
		"handshake/tls1.3/resume/c1: target 127.0.0.1:9443 answered late",
		"handshake/tls1.2/full/c1: group x25519 negotiated",
		"handshake/tls1.2/resume/c1: group x448 negotiated",
	}
	if !slices.Equal(got, want) {
		t.Errorf("notes:\n%q\nwant:\n%q", got, want)
	}
}
