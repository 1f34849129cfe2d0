//go:build unix

package tempdir_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tlsbench/tlsbench/internal/tempdir"
)

// TestRemoveStale: of the directories named for prefix, those of a
// process that has ended go; those of running processes (this one, pid
// 1), other names, files and links stay.
func TestRemoveStale(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	// A real process that has ended (and been waited for).
	dead := endedPID(t)
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
	age(t, tmp)
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

// age sets the times of the directories in tmp an hour back: past the
// grace a directory just made is given.
func age(t *testing.T, tmp string) {
	t.Helper()
	entries, _ := os.ReadDir(tmp)
	old := time.Now().Add(-time.Hour)
	for _, e := range entries {
		if e.IsDir() {
			if err := os.Chtimes(filepath.Join(tmp, e.Name()), old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// endedPID is the ID of a real process that has ended (and been waited
// for).
func endedPID(t *testing.T) string {
	t.Helper()
	ended := exec.Command(os.Args[0], "-test.run=^$")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	return strconv.Itoa(ended.Process.Pid)
}

// TestRemoveStaleLocked: a directory whose process ID looks ended, as
// that of a process in another PID namespace (a container sharing /tmp)
// does, stays while a process holds its lock: one that Make made in this
// process, one locked by another process. One whose lock nobody holds
// goes, and so does one without a lock file (of an older tlsbench) once
// it is old; one just made stays whatever.
func TestRemoveStaleLocked(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	dead := endedPID(t)
	made, err := tempdir.MakeIn(tmp, "p-")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(made, tempdir.LockName)); err != nil {
		t.Fatal(err)
	}
	// Under the name a process of the same ID in another namespace
	// would give it.
	alive := filepath.Join(tmp, "p-"+dead+"-1")
	if err := os.Rename(made, alive); err != nil {
		t.Fatal(err)
	}
	held := filepath.Join(tmp, "p-"+dead+"-2")
	free := filepath.Join(tmp, "p-"+dead+"-3")
	legacy := filepath.Join(tmp, "p-"+dead+"-4")
	for _, d := range []string{held, free, legacy} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{held, free} {
		if err := os.WriteFile(filepath.Join(d, tempdir.LockName), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	holdLock(t, filepath.Join(held, tempdir.LockName))
	age(t, tmp)
	young := filepath.Join(tmp, "p-"+dead+"-5")
	if err := os.Mkdir(young, 0o700); err != nil {
		t.Fatal(err)
	}
	removed := tempdir.RemoveStaleIn(tmp, "p-")
	slices.Sort(removed)
	if want := []string{free, legacy}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for _, d := range []string{alive, held, young} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: %v", filepath.Base(d), err)
		}
	}
	if err := os.Rename(alive, made); err != nil {
		t.Fatal(err)
	}
	if err := tempdir.Remove(made); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(made); !os.IsNotExist(err) {
		t.Errorf("Remove left %s: %v", made, err)
	}
}

// holdLock has another process lock path until the test ends.
func holdLock(t *testing.T, path string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHoldLock$")
	cmd.Env = append(os.Environ(), "TEMPDIR_HOLD_LOCK="+path)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if line != "locked\n" {
		t.Fatalf("lock holder: %q, %v", line, err)
	}
}

// TestHoldLock is the other process of holdLock: it locks the file its
// environment names and holds it until its input ends.
func TestHoldLock(t *testing.T) {
	path := os.Getenv("TEMPDIR_HOLD_LOCK")
	if path == "" {
		t.Skip("only the lock holder of another test")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	fmt.Println("locked")
	bufio.NewReader(os.Stdin).ReadString('\n')
}

// TestRemoveStaleFIFOLock: a FIFO where the lock file should be neither
// blocks the clean-up (an open of a FIFO waits for a writer) nor counts
// as a free lock: its directory is kept.
func TestRemoveStaleFIFOLock(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "p-"+endedPID(t)+"-1")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(filepath.Join(dir, tempdir.LockName), 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	age(t, tmp)
	done := make(chan []string, 1)
	go func() { done <- tempdir.RemoveStaleIn(tmp, "p-") }()
	select {
	case removed := <-done:
		if len(removed) != 0 {
			t.Errorf("removed %v: a FIFO is no lock that is free", removed)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the clean-up blocked on a FIFO in the lock's place")
	}
}
