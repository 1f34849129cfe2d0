package plan

import (
	"math"
	"strconv"
	"time"
)

// MaxShards is the most shards a run may be split into.
const MaxShards = 10_000

// CheckShard refuses shard index of count shards (shard): a count of 0 is
// a run that is not sharded, whose index is 0 too.
func CheckShard(index, count int) error {
	switch {
	case count == 0 && index == 0:
		return nil
	case count < 1:
		return Errorf(Settings.Shard, shardText(index, count), "the number of shards must be at least 1")
	case count > MaxShards:
		return Errorf(Settings.Shard, shardText(index, count), "at most %d shards", MaxShards)
	case index < 0 || index >= count:
		return Errorf(Settings.Shard, shardText(index, count), "the shard's index must be from 0 to %d", count-1)
	}
	return nil
}

// shardText writes a shard as the settings take it: I/N.
func shardText(index, count int) string {
	return strconv.Itoa(index) + "/" + strconv.Itoa(count)
}

// Shares is a sharded run's load, which its Count shards split: every
// shard must get some of every case's.
type Shares struct {
	Count            int
	ClientIdentities int
	Concurrency      []int
	// Rates, when set, are split too, as is MaxInflight, the cap on
	// open connections in effect; Window is each iteration's time.
	Rates       []float64
	MaxInflight int
	Window      time.Duration
}

// Check refuses a load too small to give every shard some.
func (s Shares) Check() error {
	if s.ClientIdentities > 1 && s.ClientIdentities < s.Count {
		return Errorf(Settings.ClientIdentities, s.ClientIdentities, "fewer client identities than shards: each shard needs its own (identity-scoped sessions never cross shards)")
	}
	for _, c := range s.Concurrency {
		if c < s.Count {
			return Errorf(Settings.Concurrency, c, "a wave of %d split over %d shards leaves some shard none: raise %s to at least %d, or use fewer shards", c, s.Count, Settings.Concurrency, s.Count)
		}
	}
	if len(s.Rates) > 0 && s.MaxInflight < s.Count {
		return Errorf(Settings.MaxInflight, s.MaxInflight, "split over %d shards leaves some shard no connection to open: raise %s to at least %d, or use fewer shards (%s N or %s I/N)", s.Count, Settings.MaxInflight, s.Count, Settings.Shards, Settings.Shard)
	}
	window := s.Window.Seconds()
	for _, r := range s.Rates {
		if math.Round(r*window) < float64(s.Count) {
			return Errorf(Settings.Rate, RateName(r), "a window of %.3gs holds %.0f connections at this rate, fewer than the %d shards: raise %s, lengthen %s, or lower %s or the shards", window, math.Round(r*window), s.Count, Settings.Rate, Settings.Duration, Settings.Iterations)
		}
	}
	return nil
}
