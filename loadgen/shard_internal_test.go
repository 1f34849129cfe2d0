package loadgen

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
)

func TestShareOfSumsToTheWhole(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ total, count int }{{64, 2}, {64, 3}, {7, 3}, {1, 1}, {128, 5}, {3, 3}, {10, 4}} {
		sum := 0
		for i := range tc.count {
			s := measure.ShareOf(tc.total, i, tc.count)
			sum += s
			// The remainder goes to the lowest indices: shares differ by
			// at most one and never increase with the index.
			if i > 0 && s > measure.ShareOf(tc.total, i-1, tc.count) {
				t.Errorf("ShareOf(%d, %d, %d) = %d, more than shard %d's", tc.total, i, tc.count, s, i-1)
			}
			if s != tc.total/tc.count && s != tc.total/tc.count+1 {
				t.Errorf("ShareOf(%d, %d, %d) = %d", tc.total, i, tc.count, s)
			}
		}
		if sum != tc.total {
			t.Errorf("shares of %d over %d sum to %d", tc.total, tc.count, sum)
		}
	}
}

// shardSchedule is the first window's schedule of shard i of n of a
// constant open-loop case of the whole rate.
func shardSchedule(t *testing.T, arrival string, rate float64, shard, shards int) (*measure.HandshakeCase, []time.Duration) {
	t.Helper()
	hc := &measure.HandshakeCase{Name: "handshake/tls1.3/full/r" + "x", Rate: rate / float64(max(shards, 1)), Duration: time.Second,
		Iterations: 4, Arrival: arrival, MaxInflight: 8, Shard: shard, Shards: shards}
	if err := hc.ValidateOpen(); err != nil {
		t.Fatal(err)
	}
	if err := hc.ValidateShard(); err != nil {
		t.Fatal(err)
	}
	hc.OpenDefaults()
	return hc, newOpenState(hc).schedule(arrival, hc.Handshakes, hc.WindowLength())
}

func TestShardSchedulesUniteIntoTheWholeSchedule(t *testing.T) {
	t.Parallel()
	// Rates whose windows divide evenly over the shards and rates that
	// leave a remainder.
	for _, tc := range []struct {
		rate   float64
		shards int
	}{{400, 2}, {400, 3}, {1000, 7}, {12, 3}, {26, 4}, {13, 3}, {100, 1}} {
		_, whole := shardSchedule(t, results.ArrivalConstant, tc.rate, 0, 0)
		var union []time.Duration
		count := 0
		for i := range tc.shards {
			hc, s := shardSchedule(t, results.ArrivalConstant, tc.rate, i, tc.shards)
			count += hc.Handshakes
			// Shard i's first start is the whole schedule's i-th: an
			// offset of i/rate.
			if tc.shards > 1 && len(s) > 0 && s[0] != whole[i] {
				t.Errorf("rate %v over %d: shard %d starts at %v, want %v", tc.rate, tc.shards, i, s[0], whole[i])
			}
			union = append(union, s...)
		}
		slices.Sort(union)
		if !slices.Equal(union, whole) {
			t.Errorf("rate %v over %d shards: the union of the schedules (%d starts) is not the whole schedule (%d):\n%v\n%v",
				tc.rate, tc.shards, len(union), len(whole), union, whole)
		}
		if count != len(whole) {
			t.Errorf("rate %v over %d: shards schedule %d connections, the whole %d", tc.rate, tc.shards, count, len(whole))
		}
	}
}

func TestShardPoissonArrivalsDifferPerShard(t *testing.T) {
	t.Parallel()
	_, a := shardSchedule(t, results.ArrivalPoisson, 400, 0, 2)
	_, b := shardSchedule(t, results.ArrivalPoisson, 400, 1, 2)
	_, a2 := shardSchedule(t, results.ArrivalPoisson, 400, 0, 2)
	if slices.Equal(a, b) {
		t.Error("shards 0 and 1 drew the same Poisson arrivals: together they would not be a Poisson process of the whole rate")
	}
	if !slices.Equal(a, a2) {
		t.Error("one shard drew different arrivals in two runs: a case should repeat its schedule")
	}
	if len(a)+len(b) != 100 {
		t.Errorf("shards schedule %d+%d connections per window, want 100 (400/s over 250 ms windows)", len(a), len(b))
	}
}

func TestShardValidation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		hc   measure.HandshakeCase
	}{
		{"index past the count", measure.HandshakeCase{Shard: 2, Shards: 2}},
		{"negative index", measure.HandshakeCase{Shard: -1, Shards: 2}},
		{"negative count", measure.HandshakeCase{Shards: -1}},
		{"open loop without a duration", measure.HandshakeCase{Shard: 0, Shards: 2, Rate: 10, Iterations: 2}},
		{"windows too small for the shards", measure.HandshakeCase{Shard: 0, Shards: 4, Rate: 0.5, Duration: 2 * time.Second, Iterations: 2}},
	} {
		if err := tc.hc.ValidateShard(); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}

func TestWaitStart(t *testing.T) {
	t.Parallel()
	past := newCaseRunner(&measure.HandshakeCase{StartAt: time.Now().Add(-time.Second)})
	if err := past.waitStart(context.Background()); err != nil || past.Late < time.Second {
		t.Errorf("a start past its instant: err %v, late %v; want at least 1s late", err, past.Late)
	}
	soon := newCaseRunner(&measure.HandshakeCase{StartAt: time.Now().Add(50 * time.Millisecond)})
	if err := soon.waitStart(context.Background()); err != nil || time.Now().Before(soon.Case.StartAt) {
		t.Errorf("waited until %v: err %v, returned before it", soon.Case.StartAt, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	far := newCaseRunner(&measure.HandshakeCase{StartAt: time.Now().Add(time.Hour)})
	if err := far.waitStart(ctx); err == nil {
		t.Error("an interrupted wait returned no error")
	}
}
