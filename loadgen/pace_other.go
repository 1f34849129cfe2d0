//go:build !linux

package loadgen

import "time"

// paceThread does nothing where the thread's timer slack cannot be set.
func paceThread() {}

// sleepFine sleeps d on Go's timers.
func sleepFine(d time.Duration) { time.Sleep(d) }
