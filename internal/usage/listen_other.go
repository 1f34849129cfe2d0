//go:build !linux

package usage

import (
	"fmt"
	"runtime"
)

// ListensOn needs /proc; elsewhere it says so, and the caller cannot tell
// whether a process owns a listening socket.
func ListensOn(pid, port int) (bool, error) {
	return false, fmt.Errorf("finding which process listens on a port is not available on %s (needs /proc)", runtime.GOOS)
}

// Listener needs /proc too.
func Listener(pid, port int) (int, error) {
	_, err := ListensOn(pid, port)
	return 0, err
}
