package cli

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/runner"
)

// The flags of a sharded run (tlsbench run --shard I/N, --shards N) and
// of a common start (--start-at).

// startAtSlack is how far in the past --start-at may be without a
// warning: the shards were started a little late, nothing to say.
const startAtSlack = time.Second

// maxStartAhead is the furthest ahead --start-at may be: beyond it the
// time is more likely a mistake than a plan.
const maxStartAhead = 24 * time.Hour

// jobIndexEnv is where a Kubernetes Indexed Job puts the pod's index.
const jobIndexEnv = "JOB_COMPLETION_INDEX"

// defineShardFlags defines them on fs, into f.
func defineShardFlags(fs *command.FlagSet, f *runFlags) {
	fs.DefString(&f.shardText, "shard", "")
	fs.DefInt(&f.shards, "shards", 0)
	fs.DefString(&f.startAtText, "start-at", "")
}

// parseStartAt reads --start-at: an RFC 3339 time, or +DURATION from
// now. relative says which.
func parseStartAt(s string, now time.Time) (at time.Time, relative bool, err error) {
	if rest, ok := strings.CutPrefix(s, "+"); ok {
		d, err := time.ParseDuration(rest)
		if err != nil || d < 0 {
			return time.Time{}, true, fmt.Errorf("want +DURATION, e.g. +30s")
		}
		return now.Add(d), true, nil
	}
	at, err = time.Parse(time.RFC3339Nano, s)
	if err != nil || at.IsZero() {
		// The zero time (year 1, in UTC) would read as no --start-at.
		return time.Time{}, false, fmt.Errorf("want an RFC 3339 time, e.g. 2026-12-01T06:00:00Z, or +DURATION, e.g. +30s")
	}
	return at, false, nil
}

// parseShard reads --shard I/N.
func parseShard(s string) (runner.Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(strings.TrimSpace(i))
	count, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil {
		return runner.Shard{}, command.Usagef("--shard %s: want INDEX/COUNT, e.g. 0/4", command.ShownValue(s))
	}
	if err := checkShardCount("--shard "+s, count); err != nil {
		return runner.Shard{}, err
	}
	if index < 0 || index >= count {
		return runner.Shard{}, command.Usagef("--shard %s: the index counts from 0: want 0 to %d", s, count-1)
	}
	return runner.Shard{Index: index, Count: count}, nil
}

func checkShardCount(what string, count int) error {
	if count < 1 || count > plan.MaxShards {
		return command.Usagef("%s: the number of shards must be from 1 to %d", what, plan.MaxShards)
	}
	return nil
}

// shardFromEnv is --shards N's shard: its index from JOB_COMPLETION_INDEX.
func shardFromEnv(count int, getenv func(string) string) (runner.Shard, error) {
	if err := checkShardCount(fmt.Sprintf("--shards %d", count), count); err != nil {
		return runner.Shard{}, err
	}
	raw := getenv(jobIndexEnv)
	if raw == "" {
		return runner.Shard{}, command.Usagef("--shards %d takes this shard's index from %s, which Kubernetes Indexed Jobs set and which is not set here: give --shard INDEX/%d instead", count, jobIndexEnv, count)
	}
	index, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil || index < 0 || index >= count {
		return runner.Shard{}, command.Usagef("--shards %d: %s=%s is not a shard index from 0 to %d", count, jobIndexEnv, command.ShownValue(raw), count-1)
	}
	return runner.Shard{Index: index, Count: count}, nil
}

// validateShard checks --shard, --shards and --start-at, and refuses in
// a sharded run what cannot be split.
func validateShard(fs *command.FlagSet, f *runFlags, now time.Time, getenv func(string) string) error {
	relative := false
	if fs.IsSet("start-at") {
		var err error
		if f.startAt, relative, err = parseStartAt(f.startAtText, now); err != nil {
			return command.Usagef("--start-at %s: %v", command.ShownValue(f.startAtText), err)
		}
	}
	var err error
	switch {
	case fs.IsSet("shard") && fs.IsSet("shards"):
		return command.Usagef("--shard and --shards both say which shard this is: give one (--shards N takes the index from %s)", jobIndexEnv)
	case fs.IsSet("shard"):
		f.shard, err = parseShard(f.shardText)
	case fs.IsSet("shards"):
		f.shard, err = shardFromEnv(f.shards, getenv)
	default:
		return startAtScope(fs, f)
	}
	if err != nil {
		return err
	}
	return shardRefusals(fs, f, relative)
}

// startAtScope refuses --start-at where it would be ignored: it delays
// the handshake cases of one server, measured one after the other.
func startAtScope(fs *command.FlagSet, f *runFlags) error {
	if !fs.IsSet("start-at") {
		return nil
	}
	if f.tp.mode != modeHandshake {
		return command.Usagef("--start-at delays handshake cases; throughput cases begin at once: drop --start-at")
	}
	for _, name := range []string{"versus", "versus-server", "versus-self", "find-rate"} {
		if fs.IsSet(name) {
			return command.Usagef("--start-at cannot be combined with --%s, whose cases begin as soon as the one before ends: drop one of them", name)
		}
	}
	return nil
}

// shardRefusals refuses, in a sharded run, the flags it cannot split
// and the flags it cannot go without.
func shardRefusals(fs *command.FlagSet, f *runFlags, relative bool) error {
	sh := plan.Sharding{By: plan.Settings.Shard, Throughput: f.tp.mode != modeHandshake,
		Target: f.target.Addr != "", Timed: fs.IsSet("duration"), StartAt: fs.IsSet("start-at")}
	if fs.IsSet("shards") {
		sh.By = plan.Settings.Shards
	}
	for _, name := range []string{"versus", "versus-server", "versus-self", "proxy", "find-rate", "target-error"} {
		if fs.IsSet(name) {
			sh.Unsplittable = append(sh.Unsplittable, plan.Lookup(plan.Run, name))
		}
	}
	if err := sh.Check(); err != nil {
		return command.PlanUsage(err)
	}
	switch {
	case relative:
		return command.Usagef("--start-at %s counts from when each shard starts, so the shards would not begin together: give them all one RFC 3339 time, e.g. %s", f.startAtText, f.startAt.UTC().Truncate(time.Second).Format(time.RFC3339))
	}
	return nil
}

// checkStartAt judges --start-at against now, once the plan is known:
// far ahead is more likely a mistake; already past, a shard started late
// begins at once and its records say how late, but one that could not
// overlap any other shard (the whole run would be over) is refused.
// Times are compared, not their distance from now: a distance of
// centuries does not fit in a time.Duration.
func checkStartAt(job *runJob, now time.Time, stderr io.Writer) error {
	p := &job.plan
	if p.StartAt.IsZero() {
		return nil
	}
	if p.StartAt.After(now.Add(maxStartAhead)) {
		return command.Usagef("--start-at %s is more than %v ahead: give a time closer to now", job.f.startAtText, maxStartAhead)
	}
	if !p.StartAt.Before(now.Add(-startAtSlack)) {
		return nil
	}
	if length := p.RunLength(); p.Shard.Enabled() && !now.Before(p.StartAt.Add(length)) {
		return command.Usagef("--start-at %s was %s ago, longer than the whole sharded run takes (%v): its other shards are done; give a time ahead of now",
			job.f.startAtText, agoText(now, p.StartAt, time.Second), length)
	}
	fmt.Fprintf(stderr, "tlsbench: WARNING: --start-at %s was %s ago: beginning now, late (each record says how late)\n", job.f.startAtText, agoText(now, p.StartAt, time.Millisecond))
	return nil
}

// agoText is how long before now at was, rounded to unit; a time too far
// past for a time.Duration is said to be so.
func agoText(now, at time.Time, unit time.Duration) string {
	d := now.Sub(at)
	if d == math.MaxInt64 {
		return "more than 292 years"
	}
	return d.Round(unit).String()
}

// applyShard sets the plan's shard and start.
func applyShard(f *runFlags, p *runner.Plan) {
	p.Shard, p.StartAt = f.shard, f.startAt
}

// osGetenv is the environment a run reads its shard index from.
var osGetenv = os.Getenv
