package loadgen

import (
	"context"
	"time"
)

// A shard is one of several generators that together make one load
// (HandshakeCase.Shards > 1). Each makes its share: in closed loop the
// caller gives it its share of the wave (Concurrency); in open loop
// Rate is its share of the whole rate, and its schedule is the whole
// schedule's connections k ≡ Shard (mod Shards), so that the shards'
// schedules together are the one asked for.

// shardAt is the intended start of this shard's i-th connection in a
// window of length with constant arrivals: the whole schedule's
// connection Shard + i·Shards of wholeWindow evenly spaced ones.
func shardAt(i, shard, shards, whole int, length time.Duration) time.Duration {
	k := int64(shard) + int64(i)*int64(shards)
	return time.Duration(int64(length) * k / int64(whole))
}

// waitStart waits, once the sessions are primed, until the case's common
// start (StartAt), and keeps how late it began: a shard that began late
// measured while the others already were.
func (r *caseRunner) waitStart(ctx context.Context) error {
	at := r.Case.StartAt
	if at.IsZero() {
		return nil
	}
	if d := time.Until(at); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	r.Late = max(0, time.Since(at))
	return nil
}
