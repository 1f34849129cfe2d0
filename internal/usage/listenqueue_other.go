//go:build !linux

package usage

import (
	"fmt"
	"runtime"
)

// ReadListenQueue needs /proc/net/netstat; elsewhere it says so, and the
// listen queue is not counted.
func ReadListenQueue() (ListenQueue, error) {
	return ListenQueue{}, fmt.Errorf("listen-queue counters are not read on %s (needs /proc/net/netstat)", runtime.GOOS)
}
