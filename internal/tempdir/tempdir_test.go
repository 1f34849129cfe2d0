package tempdir_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/tlsbench/tlsbench/internal/tempdir"
)

// TestRemoveStale: of the directories named for prefix, those of a
// process that has ended go; those of running processes (this one, pid
// 1), other names, files and links stay.
func TestRemoveStale(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	// A real process that has ended (and been waited for).
	ended := exec.Command(os.Args[0], "-test.run=^$")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	dead := strconv.Itoa(ended.Process.Pid)
	me := strconv.Itoa(os.Getpid())
	target := t.TempDir()
	for _, tc := range []struct {
		name string
		make func(path string) error
		gone bool
	}{
		{"p-" + dead + "-123", mkdir, true},
		{"p-" + me + "-123", mkdir, false},
		{"p-1-123", mkdir, false},
		{"p-" + dead, mkdir, false},           // no random part: not Make's
		{"p-0" + dead + "-123", mkdir, false}, // not a pid as Make writes it
		{"p-123456789", mkdir, false},         // an older name, without a pid
		{"q-" + dead + "-123", mkdir, false},
		{"p-" + dead + "-456", func(p string) error { return os.WriteFile(p, nil, 0o600) }, false},
		{"p-" + dead + "-789", func(p string) error { return os.Symlink(target, p) }, false},
	} {
		if err := tc.make(filepath.Join(tmp, tc.name)); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(tmp, "p-"+dead+"-123", "key.pem"), []byte("k"), 0o600)
	removed := tempdir.RemoveStaleIn(tmp, "p-")
	if want := []string{filepath.Join(tmp, "p-"+dead+"-123")}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	left, _ := os.ReadDir(tmp)
	if len(left) != 8 {
		t.Errorf("%d entries left, want 8", len(left))
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the link's target: %v", err)
	}
}

func mkdir(path string) error { return os.Mkdir(path, 0o700) }
