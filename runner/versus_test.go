package runner_test

import (
	"context"
	"crypto/tls"
	"errors"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// versusPlan is a small interleaved plan against the built-in server.
func versusPlan() runner.Plan {
	return runner.Plan{
		Versions:      []uint16{tls.VersionTLS13},
		Resume:        []bool{false, true},
		Concurrency:   []int{2},
		Handshakes:    16,
		Iterations:    6,
		Warmup:        1,
		MinResumption: 0.99,
		ConnTimeout:   10 * time.Second,
		ChildEnv:      []string{testchild.Env()},
		Versus:        runner.Versus{Self: true},
	}
}

// bySide groups records by case name and side.
func bySide(t *testing.T, recs []results.Record) map[string]map[string]results.Record {
	t.Helper()
	out := map[string]map[string]results.Record{}
	for _, r := range recs {
		if out[r.Name] == nil {
			out[r.Name] = map[string]results.Record{}
		}
		if _, dup := out[r.Name][r.Side]; dup {
			t.Fatalf("%s: two records of side %q", r.Name, r.Side)
		}
		out[r.Name][r.Side] = r
	}
	return out
}

// pidNotices collects the pids of the built-in servers a run started, by
// side, from its notices.
type pidNotices struct {
	mu    sync.Mutex
	pids  map[string][]int // side ("" for a) -> pids started
	addrs map[string]string
}

var startedNotice = regexp.MustCompile(`built-in server \([^,)]*(?:, side (\w+))?\) pid (\d+) on (\S+)`)

func (n *pidNotices) notice(s string) {
	m := startedNotice.FindStringSubmatch(s)
	if m == nil {
		return
	}
	pid, _ := strconv.Atoi(m[2])
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.pids == nil {
		n.pids, n.addrs = map[string][]int{}, map[string]string{}
	}
	n.pids[m[1]] = append(n.pids[m[1]], pid)
	n.addrs[m[1]] = m[3]
}

func (n *pidNotices) last(side string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	p := n.pids[side]
	if len(p) == 0 {
		return 0
	}
	return p[len(p)-1]
}

// TestVersusSelf runs every case on two built-in servers, each in its own
// child process, interleaved: each case gives a record per side with the
// same name and params and as many paired samples, each side's server
// counts its own handshakes and CPU, and both say what side b is.
func TestVersusSelf(t *testing.T) {
	t.Parallel()
	p := versusPlan()
	var n pidNotices
	p.Notice = n.notice
	recs := collect(t, 2*len(p.Cases()), func(emit func(*results.Record) error) error {
		return runner.Run(context.Background(), p, emit)
	})
	if a, b := n.last("a"), n.last("b"); a == 0 || b == 0 || a == b {
		t.Fatalf("server pids: side a %d, side b %d: want two child processes", a, b)
	}
	for name, sides := range bySide(t, recs) {
		a, b := sides[results.SideA], sides[results.SideB]
		if len(sides) != 2 || a.Name == "" || b.Name == "" {
			t.Fatalf("%s: sides %v, want a and b", name, keys(sides))
		}
		if len(a.SamplesUS) != len(b.SamplesUS) || len(a.SamplesUS) < p.Iterations {
			t.Errorf("%s: %d samples on side a, %d on side b: want the same, at least %d", name, len(a.SamplesUS), len(b.SamplesUS), p.Iterations)
		}
		for _, r := range []results.Record{a, b} {
			if r.Versus != "self" {
				t.Errorf("%s side %s: versus %q, want self", name, r.Side, r.Versus)
			}
			if r.ServerCPUUS == nil || *r.ServerCPUUS <= 0 || r.ServerResumed == nil {
				t.Errorf("%s side %s: no server CPU or server count: each side's server must be observed", name, r.Side)
			}
			if r.ServerResumed != nil && *r.ServerResumed != r.Resumed {
				t.Errorf("%s side %s: server resumed %d, client %d: a side counted the other side's handshakes", name, r.Side, *r.ServerResumed, r.Resumed)
			}
			if r.Verdict != "" || r.StoppedBy == "" {
				t.Errorf("%s side %s: verdict %q, stopped by %q", name, r.Side, r.Verdict, r.StoppedBy)
			}
		}
		if strings.Join(mapEntries(a.Params), ",") != strings.Join(mapEntries(b.Params), ",") {
			t.Errorf("%s: params differ between sides: %v vs %v", name, a.Params, b.Params)
		}
	}
}

// TestVersusThreeSides measures side b from another program (here this
// test binary acting as tlsbench) and side a twice: records of sides a, b
// and a2, each naming the build its server reported.
func TestVersusThreeSides(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := versusPlan()
	p.Resume = []bool{true}
	p.Versus = runner.Versus{Executable: exe, Self: true}
	recs := collect(t, 3*len(p.Cases()), func(emit func(*results.Record) error) error {
		return runner.Run(context.Background(), p, emit)
	})
	for name, sides := range bySide(t, recs) {
		if len(sides) != 3 {
			t.Fatalf("%s: sides %v, want a, b and a2", name, keys(sides))
		}
		n := len(sides[results.SideA].SamplesUS)
		for side, r := range sides {
			if len(r.SamplesUS) != n {
				t.Errorf("%s side %s: %d samples, side a %d", name, side, len(r.SamplesUS), n)
			}
			if r.Versus != "server "+exe {
				t.Errorf("%s side %s: versus %q", name, side, r.Versus)
			}
			// Every side names its server's program: the sides'
			// environments differ in exactly that.
			if r.Env.Peers["tlsbench-server"] == "" {
				t.Errorf("%s side %s: peers %v: no build of its server", name, side, r.Env.Peers)
			}
		}
	}
}

// TestVersusSettingKeyCache turns side b's key cache off: its server
// decrypts its PKCS#12 key on every full handshake, side a's never, in
// the same run; each record says its own side's key cache, and versus
// names the difference.
func TestVersusSettingKeyCache(t *testing.T) {
	t.Parallel()
	p := versusPlan()
	useP12Identity(t, &p)
	p.Versus.Settings = []runner.VersusSetting{{Name: "key-cache", Value: "off"}}
	recs := collect(t, 2*len(p.Cases()), func(emit func(*results.Record) error) error {
		return runner.Run(context.Background(), p, emit)
	})
	for _, r := range recs {
		want := 0.0
		if r.Side == results.SideB && !r.Resume {
			want = 1
		}
		if got := r.Extra["server_key_decryptions_per_handshake"]; got != want {
			t.Errorf("%s side %s: %.3f key decryptions per handshake, want %.0f", r.Name, r.Side, got, want)
		}
		if r.Versus != "self with key-cache=off" {
			t.Errorf("%s side %s: versus %q", r.Name, r.Side, r.Versus)
		}
		// Each record is true of its own side's server.
		if wantOn := r.Side == results.SideA; r.KeyCache == nil || *r.KeyCache != wantOn || r.Params["key_cache"] != map[bool]string{true: "on", false: "off"}[wantOn] {
			t.Errorf("%s side %s: key_cache %v, params.key_cache %q; want %v", r.Name, r.Side, r.KeyCache, r.Params["key_cache"], wantOn)
		}
	}
}

// TestVersusSideBKilled kills side b's server during the measured rounds:
// the run stops naming the case, both sides' records are emitted with the
// same number of paired samples (the round cut short is dropped on both
// sides), and side b's record is failed while side a's is not.
func TestVersusSideBKilled(t *testing.T) {
	t.Parallel()
	p := versusPlan()
	p.Resume = []bool{false}
	p.Concurrency = []int{2, 4} // the second case is never reached
	p.Iterations = 1_000_000    // only the kill ends the case
	var n pidNotices
	p.Notice = n.notice
	recs, err := runKilling(t, p, func() { syscall.Kill(n.last("b"), syscall.SIGKILL) })
	for _, want := range []string{"case handshake/tls1.3/full/c2, side b:", "SIGKILL", "1 more case was not run"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	sides := bySide(t, recs)["handshake/tls1.3/full/c2"]
	a, b := sides[results.SideA], sides[results.SideB]
	if len(sides) != 2 || len(a.SamplesUS) < 3 || len(a.SamplesUS) != len(b.SamplesUS) {
		t.Fatalf("records %v: side a %d samples, side b %d: want both, equal, at least 3", keys(sides), len(a.SamplesUS), len(b.SamplesUS))
	}
	if b.Verdict != "failed" || a.Verdict != "" {
		t.Errorf("verdicts: side a %q, side b %q; want only side b failed", a.Verdict, b.Verdict)
	}
	// Neither side was interrupted: the case ended with side b.
	if a.StoppedBy != results.StoppedFailed || b.StoppedBy != results.StoppedFailed {
		t.Errorf("stopped_by: side a %q, side b %q; want both %q", a.StoppedBy, b.StoppedBy, results.StoppedFailed)
	}
	if !strings.Contains(strings.Join(a.Notes, "; "), "side b's server died") {
		t.Errorf("side a's notes %q do not say side b's server died", a.Notes)
	}
}

// TestVersusValidation: the plan refuses sides that cannot be measured,
// naming the field.
func TestVersusValidation(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		edit  func(p *runner.Plan)
		field string
	}{
		{"target without a side a target", func(p *runner.Plan) { p.Versus = runner.Versus{Target: runner.Target{Addr: "127.0.0.1:8444"}} }, "Versus.Target.Addr"},
		{"program with a target", func(p *runner.Plan) {
			p.Target.Addr = "127.0.0.1:8443"
			p.Versus = runner.Versus{Executable: exe}
		}, "Versus.Executable"},
		{"settings alone", func(p *runner.Plan) {
			p.Versus = runner.Versus{Settings: []runner.VersusSetting{{Name: "key-cache", Value: "off"}}}
		}, "Versus.Settings"},
		{"unknown setting", func(p *runner.Plan) {
			p.Versus.Settings = []runner.VersusSetting{{Name: "colour", Value: "blue"}}
		}, "Versus.Settings"},
		{"pid without a target", func(p *runner.Plan) { p.Versus.Target.ServerPID = 1 }, "Versus.Target.ServerPID"},
		{"negative pid", func(p *runner.Plan) {
			p.Target.Addr = "127.0.0.1:8443"
			p.Versus = runner.Versus{Target: runner.Target{Addr: "127.0.0.1:8444", ServerPID: -1}}
		}, "Versus.Target.ServerPID"},
		{"through a proxy", func(p *runner.Plan) { p.Proxy.URL = runner.ProxyBuiltin }, "Proxy.URL"},
		{"memory and another program", func(p *runner.Plan) {
			p.Transports = []string{runner.TransportMemory}
			p.Versus = runner.Versus{Executable: exe}
		}, "Transports"},
		{"target error 100%", func(p *runner.Plan) { p.TargetError = 1 }, "TargetError"},
		{"negative target error", func(p *runner.Plan) { p.TargetError = -0.01 }, "TargetError"},
	} {
		p := versusPlan()
		tt.edit(&p)
		err := p.Validate()
		var pe *plan.Error
		if !errors.As(err, &pe) || pe.Setting != plan.OfField(tt.field) {
			t.Errorf("%s: Validate() = %v, want an error naming %s", tt.name, err, tt.field)
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func mapEntries(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}
