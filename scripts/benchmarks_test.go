package scripts

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestBenchmarkSectionsExist: BENCHMARKS.md says every figure comes from
// scripts/benchmarks.sh SECTION, and names the section of each of its
// headings in backquotes at the end. Each such name is a section of the
// script, and every section of the script runs when none is named (but
// serverprofile, which needs perf and root).
func TestBenchmarkSectionsExist(t *testing.T) {
	t.Parallel()
	script, err := os.ReadFile("benchmarks.sh")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../BENCHMARKS.md")
	if err != nil {
		t.Fatal(err)
	}
	var defined []string
	for _, m := range regexp.MustCompile(`(?m)^section_([a-z0-9-]+)\(\) \{`).FindAllStringSubmatch(string(script), -1) {
		defined = append(defined, m[1])
	}
	all := regexp.MustCompile(`(?m)^\tsections=\(([^)]*)\)`).FindStringSubmatch(string(script))
	if len(defined) < 10 || all == nil {
		t.Fatalf("benchmarks.sh: %d sections found, and the list run by default %v: the patterns no longer match the script", len(defined), all)
	}
	byDefault := strings.Fields(all[1])
	for _, s := range defined {
		if s != "serverprofile" && !slices.Contains(byDefault, s) {
			t.Errorf("section %s is not run when no section is named", s)
		}
	}
	for _, s := range byDefault {
		if !slices.Contains(defined, s) {
			t.Errorf("the default list names section %s, which the script does not define", s)
		}
	}
	headings := regexp.MustCompile("(?m)^#{2,3} .*\\(`([a-z0-9-]+)`\\)$").FindAllStringSubmatch(string(doc), -1)
	if len(headings) < 10 {
		t.Fatalf("BENCHMARKS.md: %d headings naming a section: the pattern no longer matches", len(headings))
	}
	for _, h := range headings {
		if !slices.Contains(defined, h[1]) {
			t.Errorf("BENCHMARKS.md: %q names section %s, which scripts/benchmarks.sh does not define", strings.TrimSpace(h[0]), h[1])
		}
	}
}
