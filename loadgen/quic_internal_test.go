package loadgen

import (
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// TestQUICVersionNames: a case's QUIC version is one name, or each
// version with its count, sorted, when they differed.
func TestQUICVersionNames(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		counts map[string]int64
		want   string
	}{
		{map[string]int64{tlsconf.QUICVersionName(tlsconf.QUICVersion1): 128}, "v1"},
		{map[string]int64{tlsconf.QUICVersionName(tlsconf.QUICVersion2): 10, tlsconf.QUICVersionName(tlsconf.QUICVersion1): 118}, "v1:118,v2:10"},
		{map[string]int64{tlsconf.QUICVersionName(0xff00001d): 1}, "0xff00001d"},
		{map[string]int64{}, ""},
	} {
		if got := measure.VersionsOf(tt.counts); got != tt.want {
			t.Errorf("versionsOf(%v) = %q, want %q", tt.counts, got, tt.want)
		}
	}
}

// TestEarlyDataLate: a connection whose early data was accepted but whose
// request was written only after its handshake had ended is counted as
// accepted (the server accepted it too), and the record says how many
// such connections there were, whose first response is a 1-RTT one.
func TestEarlyDataLate(t *testing.T) {
	t.Parallel()
	var e measure.EarlyCounts
	e.Count(client.EarlyAccepted, false)
	e.Count(client.EarlyAccepted, true)
	e.Count(client.EarlyRejected, false)
	e.Count(client.EarlyNone, false)
	if e != (measure.EarlyCounts{Offered: 3, Accepted: 2, Rejected: 1, Late: 1}) {
		t.Fatalf("counts %+v", e)
	}
	r := newCaseRunner(&measure.HandshakeCase{Name: "handshake/tls1.3/resume/quic/0rtt/c1", QUIC: &client.QUICDialer{EarlyData: true}})
	m := &measure.Measured{Total: measure.IterResult{Early: e}}
	rec := &results.Record{Resumed: 3}
	if err := r.QUICFigures(rec, m, measure.Figures{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(rec.Notes, "\n"), "1 of the 2 connections whose early data was accepted wrote their request only after the handshake") {
		t.Errorf("notes %q: want the late request counted", rec.Notes)
	}
}
