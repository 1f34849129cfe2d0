package runner

import (
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/stats"
)

// TestServerPhasesDecoded: the server's phases come under the record's
// names; a phase the tool does not know is left out, and one that does
// not decode (another program's server) leaves the server without
// phases rather than with wrong ones.
func TestServerPhasesDecoded(t *testing.T) {
	t.Parallel()
	l := stats.NewLatency()
	l.Record(time.Millisecond)
	good, err := l.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got := serverPhases(map[string]string{server.PhaseHandshake: good, server.PhaseKey: good, "later": good})
	if len(got) != 2 || got[results.PhaseServerHandshake].Count() != 1 || got[results.PhaseServerKey].Count() != 1 {
		t.Errorf("decoded %v: want the handshake and key phases under the record's names", got)
	}
	for name, in := range map[string]map[string]string{
		"undecodable": {server.PhaseHandshake: good, server.PhaseSessionStore: "HISTFAAAAB"},
		"none":        nil,
	} {
		if got := serverPhases(in); got != nil {
			t.Errorf("%s: %v, want no phases", name, got)
		}
	}
}
