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
// far ahead is refused. Times centuries away, whose distance from now
// does not fit in a time.Duration, are judged as well.
func TestCheckStartAt(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	date := func(year int) time.Time { return time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		name    string
		at      time.Time
		sharded bool
		warn    bool
		refuse  string // in the error; "" when accepted
	}{
		{"now", now, true, false, ""},
		{"half a second past", now.Add(-500 * time.Millisecond), true, false, ""},
		{"two seconds past, sharded", now.Add(-2 * time.Second), true, true, ""},
		{"two seconds past, single run", now.Add(-2 * time.Second), false, true, ""},
		{"past the whole sharded run", now.Add(-time.Hour), true, false, "was 1h0m0s ago, longer than the whole sharded run"},
		{"an hour past, single run", now.Add(-time.Hour), false, true, ""},
		{"a day and more ahead", now.Add(25 * time.Hour), true, false, "more than 24h0m0s ahead"},
		{"a day ahead", now.Add(24 * time.Hour), true, false, ""},
		{"year 3000, sharded", date(3000), true, false, "more than 24h0m0s ahead"},
		{"year 3000, single run", date(3000), false, false, "more than 24h0m0s ahead"},
		{"year 9999", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), false, false, "more than 24h0m0s ahead"},
		{"year 1000, sharded", date(1000), true, false, "was more than 292 years ago, longer than the whole sharded run"},
		{"year 1000, single run", date(1000), false, true, ""},
		{"year 0, sharded", date(0), true, false, "was more than 292 years ago"},
	} {
		job := &runJob{f: &runFlags{startAtText: "T"}}
		job.plan = runner.Plan{Versions: []uint16{0x0304}, Resume: []bool{false}, Concurrency: []int{4},
			Duration: 2 * time.Second, Iterations: 2, StartAt: tc.at}
		if tc.sharded {
			job.plan.Shard = runner.Shard{Index: 0, Count: 2}
		}
		var stderr strings.Builder
		err := checkStartAt(job, now, &stderr)
		refused := err != nil && tc.refuse != "" && strings.Contains(err.Error(), tc.refuse)
		if (err == nil) != (tc.refuse == "") || (err != nil && !refused) || (stderr.Len() > 0) != tc.warn {
			t.Errorf("%s: error %v, stderr %q; want refused with %q, warned %v", tc.name, err, stderr.String(), tc.refuse, tc.warn)
		}
	}
}

// TestParseStartAtZero: the zero time would read as no --start-at at
// all, so it is refused as a time.
func TestParseStartAtZero(t *testing.T) {
	t.Parallel()
	if at, _, err := parseStartAt("0001-01-01T00:00:00Z", time.Now()); err == nil {
		t.Errorf("the zero time accepted as %v", at)
	}
}
