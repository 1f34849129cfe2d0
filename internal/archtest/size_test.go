package archtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Sizes of the code, tests aside: a file that grows past maxFileLines,
// or a package past maxPackageLines, holds more than one concept and is
// split along its seams.
const (
	maxFileLines    = 700
	maxPackageLines = 4000
)

// oversize are the packages still past maxPackageLines, each with the
// size it may not grow beyond while it is cut down: a ratchet, lowered
// as each shrinks, the entry dropped once it is under the limit.
var oversize = map[string]int{}

// TestCodeSizes holds every non-test Go file to maxFileLines and every
// package to maxPackageLines (or its oversize ceiling).
func TestCodeSizes(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Dir}} {{join .GoFiles \" \"}}", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, dir := strings.TrimPrefix(fields[0], module), fields[1]
		total := 0
		for _, name := range fields[2:] {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			n := bytes.Count(b, []byte("\n"))
			total += n
			if n > maxFileLines {
				t.Errorf("%s/%s has %d lines, more than %d: split it by concept", pkg, name, n, maxFileLines)
			}
		}
		limit, listed := oversize[pkg]
		if !listed {
			limit = maxPackageLines
		}
		switch {
		case total > limit:
			t.Errorf("package %s has %d lines, more than %d: split it into packages of one concept", pkg, total, limit)
		case listed && total <= maxPackageLines:
			t.Errorf("package %s has %d lines, within %d: drop it from oversize", pkg, total, maxPackageLines)
		}
	}
}
