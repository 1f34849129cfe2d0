package tempdir

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LockName is the file in each directory Make makes that the process
// holds locked for as long as it runs.
const LockName = ".lock"

// grace is how long a directory is kept whatever its process ID and lock
// say: one made this instant may not hold its lock yet.
const grace = time.Minute

// locks holds the lock file of each directory Make made, open, until
// Remove; the kernel drops the lock when the process ends, however.
var locks struct {
	sync.Mutex
	m map[string]*os.File
}

// Make creates a new directory, mode 0700, in os.TempDir() named prefix,
// this process's ID, "-" and a random suffix, after removing the stale
// directories of prefix (see RemoveStale), and locks it for as long as
// this process runs or until Remove. It returns the directory and the
// stale ones it removed.
func Make(prefix string) (dir string, removed []string, err error) {
	removed = RemoveStale(prefix)
	dir, err = makeIn("", prefix)
	return dir, removed, err
}

func makeIn(tmp, prefix string) (string, error) {
	dir, err := os.MkdirTemp(tmp, prefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", err
	}
	f, err := lock(filepath.Join(dir, LockName))
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	if f != nil {
		locks.Lock()
		if locks.m == nil {
			locks.m = map[string]*os.File{}
		}
		locks.m[dir] = f
		locks.Unlock()
	}
	return dir, nil
}

// Remove removes a directory that Make made and lets go of its lock.
func Remove(dir string) error {
	err := os.RemoveAll(dir)
	locks.Lock()
	f := locks.m[dir]
	delete(locks.m, dir)
	locks.Unlock()
	if f != nil {
		f.Close()
	}
	return err
}

// RemoveStale removes the directories in os.TempDir() that Make named
// with prefix for a process that no longer runs, and that belong to
// this user; it returns them. The process ID is a first look only: a
// process in another PID namespace (a container sharing /tmp) has an ID
// that means nothing here, so a directory goes only if its lock can be
// taken, which a running process holds. A directory without a lock
// file (of an older tlsbench) goes on its process ID alone; one made or
// changed in the last minute stays; one of another user is never
// touched. Where processes cannot be asked after, nothing is removed.
func RemoveStale(prefix string) []string { return removeStale(os.TempDir(), prefix) }

func removeStale(tmp, prefix string) []string {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		pid, ok := pidOf(e.Name(), prefix)
		if !ok || pid == os.Getpid() || !e.IsDir() || running(pid) {
			continue
		}
		path := filepath.Join(tmp, e.Name())
		// Lstat: a directory of this user's, not a link to elsewhere.
		fi, err := os.Lstat(path)
		if err != nil || !fi.IsDir() || !ownedByMe(fi) || time.Since(fi.ModTime()) < grace {
			continue
		}
		if removeUnlocked(path) {
			removed = append(removed, path)
		}
	}
	return removed
}

// removeUnlocked removes dir if no process holds its lock, holding the
// lock itself while it does.
func removeUnlocked(dir string) bool {
	f, free := tryLock(filepath.Join(dir, LockName))
	if !free {
		return false
	}
	if f != nil {
		defer f.Close()
	}
	return os.RemoveAll(dir) == nil
}

// pidOf reads the process ID from a name that Make gave: prefix, the
// ID in decimal, "-", the random part.
func pidOf(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	digits, random, ok := strings.Cut(rest, "-")
	if !ok || random == "" || digits == "" || digits[0] == '0' || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
}
