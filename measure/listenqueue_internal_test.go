package measure

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/usage"
	"github.com/tlsbench/tlsbench/results"
)

// TestListenNote: the note says how many times the listen queue
// overflowed and what the connections waited for, names the connect
// phase when its connects took about a SYN retransmit, and is absent
// when nothing was dropped or the counts are unknown; a case's failure
// carries it, an interrupt does not.
func TestListenNote(t *testing.T) {
	t.Parallel()
	reading := func(o, d int64) usage.ListenReading {
		return usage.ListenReading{Q: usage.ListenQueue{Overflows: o, Drops: d}, On: true}
	}
	counted := func(spans ...[2]usage.ListenReading) *usage.ListenCount {
		c := &usage.ListenCount{}
		for _, s := range spans {
			c.Add(s[0], s[1])
		}
		return c
	}
	slowConnect := &results.Record{Phases: map[string]results.Phase{results.PhaseConnect: {Count: 64, P50US: 80, P99US: 1.02e6, MaxUS: 3.1e6}}}
	oneSlow := &results.Record{Phases: map[string]results.Phase{results.PhaseConnect: {Count: 64, P50US: 80, P99US: 90, MaxUS: 1.01e6}}}
	for _, tt := range []struct {
		name  string
		c     *usage.ListenCount
		rec   *results.Record
		want  []string
		avoid []string
	}{
		{"overflowed", counted([2]usage.ListenReading{reading(10, 12), reading(776, 782)}), nil,
			[]string{"the server's listen queue overflowed 766 times during this case (its accept backlog is smaller than the concurrency, or it accepts too slowly): connections waited for the kernel to retransmit their SYN"},
			[]string{"connect phase"}},
		{"over two spans", counted([2]usage.ListenReading{reading(0, 0), reading(2, 2)}, [2]usage.ListenReading{reading(5, 5), reading(6, 6)}), nil,
			[]string{"overflowed 3 times"}, nil},
		{"connect p99", counted([2]usage.ListenReading{reading(0, 0), reading(5, 5)}), slowConnect,
			[]string{"; the connect phase shows it: its p99 is 1020 ms"}, []string{"slowest"}},
		{"slowest connect", counted([2]usage.ListenReading{reading(0, 0), reading(5, 5)}), oneSlow,
			[]string{"its slowest connect took 1010 ms"}, nil},
		{"drops only", counted([2]usage.ListenReading{reading(0, 0), reading(0, 4)}), nil,
			[]string{"dropped 4 connection attempts", "retransmit their SYN"}, []string{"overflowed"}},
		{"nothing dropped", counted([2]usage.ListenReading{reading(3, 3), reading(3, 3)}), slowConnect, nil, []string{"listen"}},
		{"went back", counted([2]usage.ListenReading{reading(9, 9), reading(3, 3)}), nil, nil, []string{"listen"}},
		{"unreadable", counted([2]usage.ListenReading{reading(0, 0), {Err: errors.New("no"), On: true}}, [2]usage.ListenReading{reading(0, 0), reading(5, 5)}), nil, nil, []string{"listen"}},
		{"not counted", counted([2]usage.ListenReading{{}, {}}), nil, nil, []string{"listen"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hc := &HandshakeCase{Name: "c64", ListenQueue: "the server's"}
			note := hc.ListenNote(tt.c, tt.rec)
			err := hc.ListenFailure(errors.New("c64: failed"), tt.c, tt.rec)
			for _, w := range tt.want {
				if !strings.Contains(note, w) {
					t.Errorf("note %q: want %q", note, w)
				}
			}
			for _, a := range tt.avoid {
				if strings.Contains(note, a) {
					t.Errorf("note %q: should not say %q", note, a)
				}
			}
			var lo *ListenOverflowError
			if got := errors.As(err, &lo); got != (note != "") || got && err.Error() != "c64: failed; "+note {
				t.Errorf("failure %v: want the note added exactly when there is one (%q)", err, note)
			}
			if got := hc.ListenFailure(fmt.Errorf("c64: %w", context.Canceled), tt.c, tt.rec); errors.As(got, &lo) {
				t.Errorf("an interrupted case got the note: %v", got)
			}
		})
	}
}
