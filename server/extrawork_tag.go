//go:build tlsbench_extrawork

package server

import "sync/atomic"

// extraRounds is the work a server built with the tag tlsbench_extrawork
// adds to each handshake: about 1% of a full TLS 1.3 handshake's
// instructions (some 3 million; each round is 13), so that a test can tell whether a
// comparison of instruction counts finds a change that size.
const extraRounds = 2300

// extraSink keeps the work from being optimised away; handshakes on
// many goroutines store into it, so atomically.
var extraSink atomic.Uint64

// extraWork spends extraRounds rounds of a xorshift generator.
func extraWork() {
	x := extraSink.Load() | 1
	for range extraRounds {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	extraSink.Store(x)
}
