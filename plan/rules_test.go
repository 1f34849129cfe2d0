package plan_test

import (
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/plan"
)

// TestSharedRules: the rules the command line and a library plan share
// refuse in the command line's words, and let the defaults be.
func TestSharedRules(t *testing.T) {
	t.Parallel()
	flag := func(s *plan.Setting) string { return "--" + s.Name }
	text := func(err error) string {
		if err == nil {
			return ""
		}
		return err.(*plan.Error).Text(flag)
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"resume both ways", plan.CheckResume(true, true, nil), "--resume-ratio and --resume both say which cases resume: give one (--resume-ratio 0,1 is --resume off,on)"},
		{"a share above 1", plan.CheckResume(true, false, []float64{0.5, 1.5}), "--resume-ratio 1.5: must be a share between 0 (all full) and 1 (all resumed)"},
		{"shares", plan.CheckResume(true, false, []float64{0, 0.5, 1}), ""},
		{"bytes and duration", plan.CheckAmount(true, 0, time.Second), "--bytes and --duration: give one (bytes per connection and direction, or time per iteration)"},
		{"negative duration", plan.CheckAmount(false, 0, -time.Second), "--duration -1s: must be positive"},
		{"a duration", plan.CheckAmount(false, 0, time.Second), ""},
		{"no client identity given", plan.CheckClientIdentities(0, true), "--client-identities 0: must be at least 1"},
		{"the default client identity", plan.CheckClientIdentities(0, false), ""},
		{"too many client identities", plan.CheckClientIdentities(200_000, false), "--client-identities 200000: must be between 1 and 100000"},
		{"a server setting with a target", plan.Scope{Target: true}.Check(plan.Settings.KeyCache), "--key-cache configures the built-in server; it does not apply with --target"},
		{"a server setting", plan.Scope{}.Check(plan.Settings.KeyCache), ""},
		{"an exchange without a target", plan.Scope{}.Check(plan.Settings.Request), "--request applies to an external server or a proxy: add --target host:port or --proxy"},
		{"an exchange through a proxy", plan.Scope{Proxy: true}.Check(plan.Settings.Request), ""},
		{"a target's setting", plan.Scope{}.Check(plan.Settings.Insecure), "--insecure applies to an external server: add --target host:port"},
		{"the given identity's CA", plan.Scope{Identity: true}.Check(plan.Settings.CA), ""},
		{"a sharded run of throughput", plan.Sharding{By: plan.Settings.Shards, Throughput: true}.Check(),
			"--shards: a sharded run measures handshake cases; throughput cases cannot be split: drop --mode throughput"},
		{"a sharded run with side b", plan.Sharding{By: plan.Settings.Shard, Unsplittable: []*plan.Setting{plan.Settings.VersusSelf, plan.Settings.Proxy}}.Check(),
			"--shard: --versus-self cannot be used in a sharded run, whose shards each measure one share of one server's load in cases of a fixed length: drop --versus-self"},
		{"a sharded run without a target", plan.Sharding{By: plan.Settings.Shard, Timed: true, StartAt: true}.Check(),
			"--shard needs --target HOST:PORT: the built-in server runs beside each shard, so the shards would each load their own instead of one server"},
		{"a sharded run without a start", plan.Sharding{By: plan.Settings.Shard, Target: true, Timed: true}.Check(),
			"--shard needs --start-at TIME, the same RFC 3339 time for every shard (e.g. a minute from now), at which they all begin"},
		{"a sharded run", plan.Sharding{By: plan.Settings.Shard, Target: true, Timed: true, StartAt: true}.Check(), ""},
	} {
		if got := text(tc.err); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
