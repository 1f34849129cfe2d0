package compare

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/report"
)

// buildBenchstat builds the real benchstat (golang.org/x/perf/cmd/benchstat)
// from the x/perf version go.mod already requires, offline, into a
// temporary directory. It fails in CI and skips elsewhere when there is no
// go command to build with.
func buildBenchstat(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set and there is no go command to build benchstat with: %v", err)
		}
		t.Skipf("no go command to build benchstat with: %v", err)
	}
	out := filepath.Join(t.TempDir(), "benchstat")
	cmd := exec.Command(goBin, "build", "-o", out, "golang.org/x/perf/cmd/benchstat")
	// From the module cache only, and without touching go.mod or go.sum.
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building benchstat: %v\n%s\n(if go.sum lacks entries: go get golang.org/x/perf/cmd/benchstat@<the x/perf version in go.mod>)", err, msg)
	}
	return out
}

func writeBenchfmt(t *testing.T, dir, name, results string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, render(t, report.Benchfmt, loadRecords(t, results)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBenchstat runs the real benchstat on tlsbench's benchfmt output: it
// must read it without complaint and show every handshake case, and when
// comparing two files its p-values must be the ones tlsbench compare gives,
// since both use benchmath's Mann-Whitney U test on the same samples.
func TestBenchstat(t *testing.T) {
	t.Parallel()
	benchstat := buildBenchstat(t)
	dir := t.TempDir()
	old := writeBenchfmt(t, dir, "old.txt", resultsFile)
	cand := writeBenchfmt(t, dir, "new.txt", candidateFile)

	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(benchstat, args...)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Fatalf("benchstat %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return stdout.String()
	}

	t.Run("one file", func(t *testing.T) {
		out := run(filepath.Base(old))
		for _, r := range loadRecords(t, resultsFile) {
			if name := strings.TrimPrefix(report.BenchName(&r), "Benchmark"); !strings.Contains(out, name) {
				t.Errorf("benchstat output does not name %s:\n%s", name, out)
			}
		}
		for _, unit := range []string{"sec/op", "handshakes/s", "B/op", "resumed-%", "client-cpu-sec/op", "p99-sec", "B/s"} {
			if !strings.Contains(out, unit) {
				t.Errorf("benchstat output has no %s table", unit)
			}
		}
	})

	t.Run("compare", func(t *testing.T) {
		// The tlsbench version differs between the two files, and
		// benchstat puts different configurations in different tables;
		// -ignore puts them side by side, as a user would.
		out := run("-ignore", "tlsbench", filepath.Base(old), filepath.Base(cand))
		if !strings.Contains(out, "vs base") {
			t.Fatalf("benchstat made no comparison:\n%s", out)
		}
		// The sec/op table comes first: row name, then "(p=0.008 n=5)".
		table := out[:strings.Index(out, "handshakes/s")]
		row := regexp.MustCompile(`(?m)^(Handshake/\S+)-2\s.*\(p=([0-9.]+) n=\d+\)`)
		got := map[string]string{}
		for _, m := range row.FindAllStringSubmatch(table, -1) {
			got["handshake/"+strings.TrimPrefix(m[1], "Handshake/")] = m[2]
		}
		if len(got) == 0 {
			t.Fatalf("no p-values in benchstat's sec/op table:\n%s", table)
		}
		c := compareTestdata(t)
		matched := 0
		for _, cc := range c.Cases {
			p, ok := got[cc.Name]
			if !ok {
				continue // in another benchstat table (other peers)
			}
			if want := strconv.FormatFloat(cc.P, 'f', 3, 64); p != want {
				t.Errorf("%s: benchstat p=%s, tlsbench compare p=%s", cc.Name, p, want)
			}
			delete(got, cc.Name)
			matched++
		}
		if matched < 4 {
			t.Errorf("only %d cases in both benchstat's and tlsbench's comparison, want at least 4", matched)
		}
		if len(got) > 0 {
			t.Errorf("benchstat compared cases tlsbench compare did not: %v", got)
		}
	})
}

// TestBenchstatSides: the sides of an interleaved run are a name key that
// the real benchstat splits into columns.
func TestBenchstatSides(t *testing.T) {
	t.Parallel()
	benchstat := buildBenchstat(t)
	dir := t.TempDir()
	writeBenchfmt(t, dir, "paired.txt", pairedFile)
	cmd := exec.Command(benchstat, "-col", "/side", "-filter", ".unit:sec/op", "paired.txt")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, out)
	}
	for _, re := range []string{`│ +a +│ +b +│ +a2 +│`, `(?m)^Handshake/tls1\.3/full/c8-2 .* \+99\.\d+% \(p=0\.000 n=12\)$`} {
		if !regexp.MustCompile(re).Match(out) {
			t.Errorf("benchstat output lacks %s:\n%s", re, out)
		}
	}
}
