package cli

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/runner"
)

// FuzzParseShard: whatever --shard is given, it is refused or names a
// shard that exists, written back as it was read.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "3/4", "4/4", "-1/2", "1", "a/b", "0/10000", "0/10001", " 1 / 2 ", "1/2/3", "99999999999999999999/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := parseShard(s)
		if err != nil {
			return
		}
		if sh.Count < 1 || sh.Count > 10_000 || sh.Index < 0 || sh.Index >= sh.Count {
			t.Fatalf("%q: accepted shard %d of %d", s, sh.Index, sh.Count)
		}
		if again, err := parseShard(strconv.Itoa(sh.Index) + "/" + strconv.Itoa(sh.Count)); err != nil || again != sh {
			t.Fatalf("%q: %v does not read back (%v, %v)", s, sh, again, err)
		}
	})
}

// FuzzParseStartAt: --start-at is refused, or a time; +DURATION is never
// before now.
func FuzzParseStartAt(f *testing.F) {
	for _, s := range []string{"+30s", "+0s", "+-1s", "+", "2026-12-01T06:00:00Z", "2026-12-01T06:00:00.123456789+01:00", "tomorrow", "+1h30m"} {
		f.Add(s)
	}
	now := time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		at, relative, err := parseStartAt(s, now)
		if err != nil {
			return
		}
		if relative && at.Before(now) {
			t.Fatalf("%q: %v, before now", s, at)
		}
	})
}

// TestShardFromEnv: --shards N reads the index Kubernetes gives, and
// refuses one that is missing or out of range.
func TestShardFromEnv(t *testing.T) {
	t.Parallel()
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == jobIndexEnv {
				return v
			}
			return ""
		}
	}
	if s, err := shardFromEnv(3, env("2")); err != nil || s.Index != 2 || s.Count != 3 {
		t.Errorf("index 2 of 3: %v, %v", s, err)
	}
	for _, v := range []string{"", "3", "-1", "x", "1.0"} {
		if _, err := shardFromEnv(3, env(v)); err == nil {
			t.Errorf("%s=%q accepted for 3 shards", jobIndexEnv, v)
		}
	}
}

// TestCheckStartAt: a start a little past is nothing to say; further past
// it warns and runs late, unless the whole sharded run would be over;
// far ahead is refused.
func TestCheckStartAt(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		at      time.Duration // from now
		sharded bool
		warn    bool
		refuse  bool
	}{
		{"now", 0, true, false, false},
		{"half a second past", -500 * time.Millisecond, true, false, false},
		{"two seconds past, sharded", -2 * time.Second, true, true, false},
		{"two seconds past, single run", -2 * time.Second, false, true, false},
		{"past the whole sharded run", -time.Hour, true, false, true},
		{"an hour past, single run", -time.Hour, false, true, false},
		{"a day and more ahead", 25 * time.Hour, true, false, true},
	} {
		job := &runJob{f: &runFlags{startAtText: "T"}}
		job.plan = runner.Plan{Versions: []uint16{0x0304}, Resume: []bool{false}, Concurrency: []int{4},
			Duration: 2 * time.Second, Iterations: 2, StartAt: now.Add(tc.at)}
		if tc.sharded {
			job.plan.Shard = runner.Shard{Index: 0, Count: 2}
		}
		var stderr strings.Builder
		err := checkStartAt(job, now, &stderr)
		if (err != nil) != tc.refuse || (stderr.Len() > 0) != tc.warn {
			t.Errorf("%s: error %v, stderr %q; want refused %v, warned %v", tc.name, err, stderr.String(), tc.refuse, tc.warn)
		}
	}
}
