//go:build unix

package tempdir

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// running reports whether process pid exists: signal 0 checks without
// sending. EPERM is a process of another user, running all the same.
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ownedByMe reports whether fi belongs to this process's user.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// lock creates the lock file path and locks it; the lock lasts while
// the file stays open, and the kernel drops it when the process ends,
// however it ends.
func lock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "lock", Path: path, Err: err}
	}
	return f, nil
}

// tryLock takes the lock file path if no process holds it, and returns
// it open (nil if there is no lock file) and whether it was free. A
// lock file that is not a plain file, or that cannot be opened or
// locked for another reason, is taken as held.
func tryLock(path string) (*os.File, bool) {
	// O_NONBLOCK: a FIFO in the lock's place would block the open (and
	// the start of the command cleaning up) until a writer came.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true
	}
	if err != nil {
		return nil, false
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, false
	}
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	return f, true
}
