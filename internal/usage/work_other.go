//go:build !linux

package usage

import "time"

// threadCPU returns a zero id where a thread's CPU clock cannot be
// read: Work then measures nothing.
func threadCPU() (int, time.Duration) { return 0, 0 }
