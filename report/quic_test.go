package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// TestQUICColumns: a table of QUIC cases shows the share of early data
// accepted (client/server, marked when they differ), says when none was
// offered, and gives the first response's median; a table without QUIC
// cases has neither column.
func TestQUICColumns(t *testing.T) {
	t.Parallel()
	n := func(v int64) *int64 { return &v }
	on, off := true, false
	base := func(name string) results.Record {
		return results.Record{Name: name, Kind: results.KindHandshake, TLSVersion: "1.3", Transport: "quic", QUICVersion: "v1",
			Resume: true, Handshakes: 100, Resumed: 100, ResumptionRate: 1, Iterations: 2, SamplesUS: []float64{300, 310}, MeanUS: 305,
			Phases: map[string]results.Phase{results.PhaseFirstResponse: {Count: 100, P50US: 412, P99US: 900}}}
	}
	accepted := base("handshake/tls1.3/resume/quic/0rtt/c1")
	accepted.EarlyData, accepted.EarlyDataOffered, accepted.EarlyDataAccepted, accepted.EarlyDataRejected = &on, n(100), n(100), n(0)
	accepted.ServerEarlyDataAccepted = n(100)
	disagree := base("handshake/tls1.3/resume/quic/0rtt/c8")
	disagree.EarlyData, disagree.EarlyDataOffered, disagree.EarlyDataAccepted, disagree.EarlyDataRejected = &on, n(100), n(50), n(50)
	disagree.ServerEarlyDataAccepted = n(40)
	none := base("handshake/tls1.3/resume/quic/0rtt/c64")
	none.EarlyData, none.EarlyDataOffered, none.EarlyDataAccepted, none.EarlyDataRejected = &on, n(0), n(0), n(0)
	plain := base("handshake/tls1.3/resume/quic/c1")
	plain.EarlyData = &off
	var buf bytes.Buffer
	if err := Render(&buf, Table, []results.Record{accepted, disagree, none, plain}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for name, want := range map[string][]string{
		accepted.Name: {"100%/100%", "412"},
		disagree.Name: {"50%/40%!"},
		none.Name:     {"none offered"},
		plain.Name:    {" off "},
	} {
		line := tableLine(out, name+" ")
		for _, w := range want {
			if !strings.Contains(line, w) {
				t.Errorf("row of %s lacks %q:\n%s", name, w, line)
			}
		}
	}
	if !strings.Contains(out, "1st response") || !strings.Contains(out, "first response: from the connection's start") {
		t.Errorf("no first response column or note:\n%s", out)
	}
	tcp := base("handshake/tls1.3/resume/c1")
	tcp.Transport, tcp.QUICVersion = "tcp", ""
	buf.Reset()
	Render(&buf, Table, []results.Record{tcp})
	if strings.Contains(buf.String(), "0-RTT") {
		t.Errorf("a 0-RTT column without QUIC cases:\n%s", buf.String())
	}
}

// tableLine is the first line of out that starts with prefix.
func tableLine(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
