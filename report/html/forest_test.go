package html

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/report/compare"
	"github.com/tlsbench/tlsbench/results"
)

// TestForestPlot: the page of an interleaved run draws per case its
// paired ratio with its interval, the line at 1 and the floor; a case
// that was not judged is hatched and labelled.
func TestForestPlot(t *testing.T) {
	t.Parallel()
	page := parsePage(t, renderHTML(t, Run{Records: loadRecords(t, pairedFile)}))
	figs := page.all(func(n *node) bool { return n.name == "figure" && n.attr("id") == "chart-ratio" })
	if len(figs) != 1 {
		t.Fatalf("%d forest plots, want 1", len(figs))
	}
	f := figs[0]
	title := func(n *node) string {
		for _, c := range n.children {
			if c.name == "title" {
				return c.text
			}
		}
		return ""
	}
	num := func(n *node, k string) float64 {
		v, err := strconv.ParseFloat(n.attr(k), 64)
		if err != nil {
			t.Fatalf("%s %s=%q: %v", n.name, k, n.attr(k), err)
		}
		return v
	}
	class := func(c string) []*node { return f.all(func(n *node) bool { return n.hasClass(c) }) }
	ones := class("one")
	if len(ones) != 1 {
		t.Fatalf("%d lines at 1, want 1", len(ones))
	}
	one := num(ones[0], "x1")
	c := pairedTestdata(t, compare.CompareOptions{})
	points, cis, unjudged, floors := class("point"), class("ci"), class("unjudged"), class("floor")
	if len(points)+len(unjudged)-countBoth(points, "unjudged") != len(c.Cases) {
		t.Errorf("%d points and %d unjudged marks for %d cases", len(points), len(unjudged), len(c.Cases))
	}
	if len(floors) != len(c.Cases) {
		t.Errorf("%d floor bands for %d cases", len(floors), len(c.Cases))
	}
	var slower *node
	for _, p := range points {
		if strings.HasPrefix(title(p), "handshake/tls1.3/full/c8: ratio 2.001 (99.9% interval 1.984–2.018)") {
			slower = p
		}
	}
	switch {
	case slower == nil:
		t.Errorf("no point of handshake/tls1.3/full/c8 at its ratio; points: %q", titles(points, title))
	case !(num(slower, "cx") > one):
		t.Errorf("the point of a ratio of 2 is at x %v, not right of the line at 1 (x %v)", num(slower, "cx"), one)
	}
	if n := len(cis); n != 4 {
		t.Errorf("%d intervals drawn, want 4 (the judged cases with an interval): %q", n, titles(cis, title))
	}
	var nc []string
	for _, u := range unjudged {
		if u.name == "rect" {
			nc = append(nc, title(u))
		}
	}
	for _, name := range []string{"handshake/tls1.3/full/c128", "handshake/tls1.2/resume/c8"} {
		if !slices.ContainsFunc(nc, func(s string) bool { return strings.HasPrefix(s, name+": not comparable") }) {
			t.Errorf("%s is not drawn as not comparable: %q", name, nc)
		}
	}
	labels := f.all(func(n *node) bool { return n.name == "text" && n.hasClass("slower") })
	if len(labels) != 1 || labels[0].text != "slower +100.1%" {
		t.Errorf("slower labels %v, want one \"slower +100.1%%\"", labels)
	}
	// Two files overlaid have no paired ratio: no forest plot.
	if figs := parsePage(t, renderHTML(t, overlayRuns(t)...)).all(func(n *node) bool { return n.attr("id") == "chart-ratio" }); len(figs) != 0 {
		t.Error("two files overlaid have a forest plot")
	}
}

func countBoth(ns []*node, class string) int {
	n := 0
	for _, x := range ns {
		if x.hasClass(class) {
			n++
		}
	}
	return n
}

func titles(ns []*node, title func(*node) string) []string {
	var out []string
	for _, n := range ns {
		out = append(out, title(n))
	}
	return out
}

// TestFindRateCPU: a search's steps measured CPU, so the CPU chart of a
// results file of searches alone draws them, by rate, and its failed
// step as failed.
func TestFindRateCPU(t *testing.T) {
	t.Parallel()
	var recs []results.Record
	for _, r := range loadRecords(t, findRateFile) {
		if r.Kind == results.KindRateStep || r.Kind == results.KindRateSearch {
			recs = append(recs, r)
		}
	}
	page := parsePage(t, renderHTML(t, Run{Records: recs}))
	if strings.Contains(page.allText(), "no CPU measurements") {
		t.Error("the page says it has no CPU measurements")
	}
	figs := page.all(func(n *node) bool { return n.attr("id") == "chart-cpu" })
	if len(figs) != 1 {
		t.Fatal("no CPU chart")
	}
	var cats []string
	for _, n := range figs[0].all(func(n *node) bool { return n.name == "text" && n.hasClass("tick") }) {
		if strings.Contains(n.text, "find-rate/r") {
			cats = append(cats, n.text)
		}
	}
	want := []string{"tls1.3/full/find-rate/r500", "tls1.3/full/find-rate/r1000", "tls1.3/full/find-rate/r2000", "tls1.3/full/find-rate/r3000",
		"tls1.3/full/find-rate/r3250", "tls1.3/full/find-rate/r3375", "tls1.3/full/find-rate/r3500", "tls1.3/full/find-rate/r4000",
		"tls1.3/resume/find-rate/r1000", "tls1.3/resume/find-rate/r2000", "tls1.3/resume/find-rate/r4000", "tls1.3/resume/find-rate/r8000"}
	if !slices.Equal(cats, want) {
		t.Errorf("CPU chart's cases %q, want the steps by rate %q", cats, want)
	}
	if n := len(figs[0].all(func(n *node) bool { return n.hasClass("bar") && n.hasClass("failed") })); n != 2 {
		t.Errorf("%d failed bars, want 2 (client and server CPU of the failed step)", n)
	}
}
