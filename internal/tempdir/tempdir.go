package tempdir

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Make creates a new directory, mode 0700, in os.TempDir() named prefix,
// this process's ID, "-" and a random suffix, after removing the stale
// directories of prefix (see RemoveStale). It returns the directory and
// the stale ones it removed.
func Make(prefix string) (dir string, removed []string, err error) {
	removed = RemoveStale(prefix)
	dir, err = os.MkdirTemp("", prefix+strconv.Itoa(os.Getpid())+"-")
	return dir, removed, err
}

// RemoveStale removes the directories in os.TempDir() that Make named
// with prefix for a process that no longer runs, and that belong to
// this user; it returns them. A directory whose process ID another
// process has taken since is kept until that one ends; one of another
// user is never touched. Where processes cannot be asked after, nothing
// is removed.
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
		if err != nil || !fi.IsDir() || !ownedByMe(fi) {
			continue
		}
		if os.RemoveAll(path) == nil {
			removed = append(removed, path)
		}
	}
	return removed
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
