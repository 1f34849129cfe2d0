//go:build linux

package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// attack is one bounded attack on one kind of target.
type attack struct {
	name   string
	target string // serve, serve --quic or proxy
	opts   attackOpts
	netns  bool // tried inside a network namespace when one can be made
	// gap is the time between the legitimate handshakes during the
	// attack (default 1 s): a short attack needs them closer.
	gap time.Duration
	// run performs the attack on t, calls inEffect once its load is in
	// place (the legitimate handshakes start then) and returns what it saw.
	run func(ctx context.Context, cfg *config, t *target, inEffect func()) string
}

// attackOpts are what an attack needs of its target beyond the defaults.
type attackOpts struct {
	serveArgs, proxyArgs []string
	// harnessOrigin starts an origin of the harness's own behind the
	// proxy (given the serve origin, whose identity it may use) and
	// returns its address.
	harnessOrigin func(origin *target) (string, error)
}

// row is one line of the table.
type row struct {
	Attack   string  `json:"attack"`
	Target   string  `json:"target"`
	PeakMB   float64 `json:"peak_rss_mb"`
	CPU      float64 `json:"cpu_s"`
	Legit    string  `json:"legit"`
	Baseline string  `json:"baseline"`
	Outcome  string  `json:"outcome"`
}

// measure starts a fresh target, takes the baseline handshake, then runs
// the attack with legitimate handshakes alongside, and reads the target's
// CPU and peak memory from /proc.
func measure(cfg *config, a attack) row {
	r := row{Attack: a.name, Target: a.target, Legit: "-", Baseline: "-"}
	t, err := startTarget(cfg, a)
	if err != nil {
		r.Outcome = "not started: " + oneLine(err.Error())
		return r
	}
	defer t.stop()
	ctx, cancel := background()
	defer cancel()
	p := newProber(t)
	p.try(ctx) // the first handshake warms the target's caches up
	r.Baseline = p.series(ctx, 5, 200*time.Millisecond).summary()
	// The baseline's connections end before the attack counts: one still
	// in the proxy would take a slot of the attack's.
	time.Sleep(300 * time.Millisecond)
	s := startSampler(t.pid())
	before := s.last
	var legit result
	var wg sync.WaitGroup
	var once sync.Once
	inEffect := func() {
		once.Do(func() {
			wg.Add(1)
			go func() { defer wg.Done(); legit = p.series(ctx, 5, cmp.Or(a.gap, time.Second)) }()
		})
	}
	outcome := a.run(ctx, cfg, t, inEffect)
	inEffect() // an attack that failed early still gets its handshakes
	wg.Wait()
	after := s.end()
	r.Legit = legit.summary()
	r.PeakMB = float64(after.hwm) / (1 << 20)
	r.CPU = (after.cpu - before.cpu).Seconds()
	r.Outcome = finalOutcome(t, outcome)
	return r
}

// finalOutcome adds whether the target survived and what it logged.
func finalOutcome(t *target, outcome string) string {
	state := "survived"
	if !t.alive() {
		state = t.died()
	}
	return fmt.Sprintf("%s; %s; %d log lines", state, outcome, t.logLines.Load())
}

func startTarget(cfg *config, a attack) (*target, error) {
	switch a.target {
	case "serve":
		return startServe(cfg, false, filepath.Join(cfg.tmp, "serve-pki"), a.opts.serveArgs...)
	case "serve --quic":
		return startServe(cfg, true, filepath.Join(cfg.tmp, "serve-pki"), a.opts.serveArgs...)
	}
	return startProxy(cfg, a.opts)
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func selectAttacks(only string) []attack {
	var list []attack
	for _, a := range attacks() {
		if only == "" || a.name == only || strings.HasPrefix(a.name, only) {
			list = append(list, a)
		}
	}
	return list
}

func attackNames() []string {
	var names []string
	for _, a := range attacks() {
		names = append(names, a.name)
	}
	return names
}

// attacks is the whole list, in the order of the table.
func attacks() []attack {
	return []attack{
		{name: "serve-idle", target: "serve", run: idleConns(2000)},
		{name: "serve-slowloris", target: "serve", run: slowloris(2000)},
		{name: "serve-flood", target: "serve", run: flood(20000), gap: 300 * time.Millisecond},
		{name: "serve-1byte-records", target: "serve", run: oneByteRecords(30)},
		{name: "serve-malformed", target: "serve", run: malformed},
		{name: "quic-garbage-initials", target: "serve --quic", run: garbageInitials(2000, 10*time.Second)},
		{name: "proxy-silent", target: "proxy", run: idleConns(1024)},
		{name: "proxy-forbidden", target: "proxy", netns: true, run: forbidden},
		{name: "proxy-stalled-relay", target: "proxy", run: stalledRelay(20),
			opts: attackOpts{harnessOrigin: stallingOrigin}},
		{name: "proxy-big-head", target: "proxy", run: bigHead},
	}
}

// printTable writes the rows as a markdown table.
func printTable(f *os.File, rows []row) {
	fmt.Fprintln(f, "| attack | target | peak RSS MB | CPU s | legit handshake ms (baseline ms) | outcome |")
	fmt.Fprintln(f, "|---|---|---:|---:|---|---|")
	for _, r := range rows {
		fmt.Fprintf(f, "| %s | %s | %.1f | %.2f | %s (%s) | %s |\n", r.Attack, r.Target, r.PeakMB, r.CPU, r.Legit, r.Baseline, r.Outcome)
	}
}
