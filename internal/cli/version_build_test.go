package cli_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/testbuild"
)

// TestVersionOfABuiltProgram builds tlsbench with go build from a git
// repository holding this tree, as a stranger's clone is, and checks
// that its version command names the commit: first clean, then with an
// uncommitted file. The repository is a fresh copy because the go
// command stamps nothing in a git worktree or an unpacked archive, so
// the checkout itself may not be one it reads.
func TestVersionOfABuiltProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the program twice")
	}
	for _, tool := range []string{"go", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s: %v", tool, err)
		}
	}
	repo := copyTreeToRepo(t, "../..")
	rev := strings.TrimSpace(runIn(t, repo, "git", "rev-parse", "HEAD"))

	clean := versionOfBuild(t, repo)
	wantFirst := regexp.MustCompile(`^tlsbench v0\.0\.0-\d{14}-` + rev[:12] + ` \(go\S+ \S+/\S+\)$`)
	wantSecond := regexp.MustCompile(`^revision ` + rev + `, committed \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)
	if len(clean) != 2 || !wantFirst.MatchString(clean[0]) || !wantSecond.MatchString(clean[1]) {
		t.Fatalf("version of a clean build:\n%s\nwant the pseudo-version and revision of %s", strings.Join(clean, "\n"), rev)
	}

	if err := os.WriteFile(filepath.Join(repo, "uncommitted.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dirty := versionOfBuild(t, repo)
	if len(dirty) != 2 || !strings.Contains(dirty[0], rev[:12]+"+dirty ") || !strings.HasSuffix(dirty[1], ", built with uncommitted changes") {
		t.Fatalf("version of a build with uncommitted changes:\n%s", strings.Join(dirty, "\n"))
	}
}

// copyTreeToRepo copies the files git knows of under root (tracked and
// untracked, not ignored) into a new repository with one commit.
func copyTreeToRepo(t *testing.T, root string) string {
	t.Helper()
	repo := t.TempDir()
	list := runIn(t, root, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	for _, name := range strings.Split(strings.TrimSuffix(list, "\x00"), "\x00") {
		src := filepath.Join(root, name)
		fi, err := os.Lstat(src)
		if os.IsNotExist(err) || (err == nil && !fi.Mode().IsRegular()) {
			continue // deleted in the tree, or a symlink or submodule
		} else if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		copyFile(t, src, dst, fi.Mode().Perm())
	}
	runIn(t, repo, "git", "init", "-q")
	runIn(t, repo, "git", "add", "-A")
	runIn(t, repo, "git", "-c", "user.name=tlsbench test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "tree under test")
	return repo
}

func copyFile(t *testing.T, src, dst string, perm os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// versionOfBuild builds repo's tlsbench and returns the lines its version
// command prints. It is built as every program the tests run is, paths
// trimmed, so that the copy's packages are the ones already compiled,
// and with the revision stamped whatever GOFLAGS says (testbuild's
// Module).
func versionOfBuild(t *testing.T, repo string) []string {
	t.Helper()
	bin := testbuild.Program(t, t.TempDir(), "tlsbench", testbuild.Options{Module: repo})
	out := runIn(t, repo, bin, "version")
	return strings.Split(strings.TrimSpace(out), "\n")
}

func runIn(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}
