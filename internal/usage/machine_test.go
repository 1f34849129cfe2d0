package usage

import (
	"strings"
	"testing"
	"time"
)

func TestLoadNotes(t *testing.T) {
	t.Parallel()
	sec := time.Second
	tests := []struct {
		name        string
		load        Load
		want        []string // substrings, one per expected note, in order
		busy, other float64
	}{
		{"quiet", Load{Client: 4 * sec / 10, Server: 4 * sec / 10, ServerKnown: true, CPUs: 2,
			Machine: MachineTimes{Busy: 9 * sec / 10, Total: 2 * sec}}, nil, 0.45, 0.05},
		{"client and server fill both cores", Load{Client: 9 * sec / 10, Server: 9 * sec / 10, ServerKnown: true, CPUs: 2,
			Machine: MachineTimes{Busy: 19 * sec / 10, Total: 2 * sec}}, []string{"machine was saturated"}, 0.95, 0.05},
		{"pinned to one core", Load{Client: 5 * sec / 10, Server: 47 * sec / 100, ServerKnown: true, CPUs: 1,
			Machine: MachineTimes{Busy: 99 * sec / 100, Total: sec}}, []string{"machine was saturated: its 1 CPU(s) that client and server may run on were 99% busy (client and server 97%)"}, 0.99, 0.02},
		{"another process", Load{Client: 3 * sec / 10, Server: 3 * sec / 10, ServerKnown: true, CPUs: 2,
			Machine: MachineTimes{Busy: 15 * sec / 10, Total: 2 * sec}}, []string{"other load on the machine: other processes took 45%"}, 0.75, 0.45},
		{"busy with others", Load{Client: 3 * sec / 10, Server: 3 * sec / 10, ServerKnown: true, CPUs: 2,
			Machine: MachineTimes{Busy: 19 * sec / 10, Total: 2 * sec}}, []string{"other load on the machine: other processes took 65% of the 2 CPU(s) the benchmark may use; the machine was saturated by that load (95% busy, client and server 30%)"}, 0.95, 0.65},
		// Client and server at 16%, other processes at 84%: the
		// machine was full, but not of the benchmark's work.
		{"saturated by others", Load{Client: 2 * sec / 10, Server: 12 * sec / 100, ServerKnown: true, CPUs: 2,
			Machine: MachineTimes{Busy: 199 * sec / 100, Total: 2 * sec}}, []string{"other load on the machine: other processes took 84% of the 2 CPU(s) the benchmark may use; the machine was saturated by that load (100% busy, client and server 16%)"}, 0.995, 0.835},
		{"server not observed", Load{Client: 3 * sec / 10, CPUs: 2,
			Machine: MachineTimes{Busy: 8 * sec / 10, Total: 2 * sec}}, []string{"the server among them"}, 0.4, 0.25},
		{"server not observed, saturated by others", Load{Client: 3 * sec / 10, CPUs: 2,
			Machine: MachineTimes{Busy: 19 * sec / 10, Total: 2 * sec}}, []string{"(the server among them, its CPU not being observed) took 80% of the 2 CPU(s) the benchmark may use; the machine was saturated by that load (95% busy, the client 15%)"}, 0.95, 0.8},
		{"client alone saturates, server not observed", Load{Client: 19 * sec / 10, CPUs: 2,
			Machine: MachineTimes{Busy: 195 * sec / 100, Total: 2 * sec}}, []string{"the machine was saturated: its 2 CPU(s) that the client may run on were 98% busy (the client 95%)"}, 0.975, 0.025},
		// The other side of an interleaved run used 45% meanwhile
		// (a JVM compiling between its rounds): the run's own load.
		{"the other side's server", Load{Client: 3 * sec / 10, Server: 3 * sec / 10, ServerKnown: true, Peers: 9 * sec / 10, CPUs: 2,
			Machine: MachineTimes{Busy: 15 * sec / 10, Total: 2 * sec}}, nil, 0.75, 0},
		{"accounting skew is not load", Load{Client: sec, Server: sec, ServerKnown: true, CPUs: 4,
			Machine: MachineTimes{Busy: 19 * sec / 10, Total: 4 * sec}}, nil, 0.5, 0}, // busy at least what client and server took
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			busy, _, other, ok := tt.load.Shares()
			if !ok || !near(busy, tt.busy) || !near(other, tt.other) {
				t.Errorf("Shares() = busy %.3f other %.3f ok %v, want %.3f %.3f", busy, other, ok, tt.busy, tt.other)
			}
			notes := tt.load.Notes()
			if len(notes) != len(tt.want) {
				t.Fatalf("notes %q, want %d matching %q", notes, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(notes[i], w) {
					t.Errorf("note %d %q lacks %q", i, notes[i], w)
				}
			}
			for _, n := range notes {
				if !strings.Contains(n, "the machine was saturated") || strings.Contains(n, "by that load") {
					continue
				}
				if _, ours, _, _ := tt.load.Shares(); ours < SaturatedShare {
					t.Errorf("note %q says client and server saturated the machine, but they used %.0f%%", n, 100*ours)
				}
				if !tt.load.ServerKnown && strings.Contains(n, "client and server") {
					t.Errorf("note %q names the server, whose CPU is not observed", n)
				}
			}
		})
	}
}

func TestLoadUnknown(t *testing.T) {
	t.Parallel()
	if _, _, _, ok := (Load{Client: time.Second, CPUs: 2}).Shares(); ok {
		t.Error("a load without machine times was judged")
	}
	if n := (Load{Client: time.Second}).Notes(); n != nil {
		t.Errorf("notes without machine times: %q", n)
	}
}

func near(a, b float64) bool { return a-b < 0.005 && b-a < 0.005 }
