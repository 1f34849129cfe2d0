//go:build unix

package tempdir

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
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
