//go:build !unix

package usage

import "time"

// SelfCPU returns 0 where tlsbench cannot read the process's CPU time; the
// callers report such CPU figures as unknown.
func SelfCPU() time.Duration { return 0 }
