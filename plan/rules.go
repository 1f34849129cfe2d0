package plan

import "time"

// The rules of settings that the command line and a library plan share:
// each tells them what it knows (a command line, which flags were given).

// CheckResume refuses the two ways of saying which cases resume given
// together (resume-ratio, resume: ratiosGiven, resumeGiven), and a share
// of resumed connections outside 0..1.
func CheckResume(ratiosGiven, resumeGiven bool, ratios []float64) error {
	if ratiosGiven && resumeGiven {
		return Errorf(Settings.ResumeRatio, nil, "%s and %s both say which cases resume: give one (%s 0,1 is %s off,on)",
			Settings.ResumeRatio, Settings.Resume, Settings.ResumeRatio, Settings.Resume)
	}
	for _, f := range ratios {
		if !(f >= 0 && f <= 1) {
			return Errorf(Settings.ResumeRatio, RateName(f), "must be a share between 0 (all full) and 1 (all resumed)")
		}
	}
	return nil
}

// CheckResumption refuses a handshake plan's resumption axis that is
// given both ways, or neither (on/off: resume; shares: ratios), or holds
// a share outside 0..1.
func CheckResumption(resume []bool, ratios []float64) error {
	if err := CheckResume(len(ratios) > 0, len(resume) > 0, ratios); err != nil {
		return err
	}
	if len(ratios) == 0 && len(resume) == 0 {
		return Errorf(Settings.Resume, nil, "give off, on or both")
	}
	return nil
}

// CheckAmount refuses the two ways of saying how much a throughput
// iteration moves given together (bytes per connection and direction:
// bytesGiven; a duration), and either below zero.
func CheckAmount(bytesGiven bool, bytes int64, duration time.Duration) error {
	switch {
	case bytesGiven && duration > 0:
		return Errorf(Settings.Bytes, nil, "%s and %s: give one (bytes per connection and direction, or time per iteration)", Settings.Bytes, Settings.Duration)
	case bytes < 0:
		return Errorf(Settings.Bytes, bytes, "must be positive")
	case duration < 0:
		return Errorf(Settings.Duration, duration, "must be positive")
	}
	return nil
}

// MaxClientIdentities is the most client certificates a plan rotates among.
const MaxClientIdentities = 100_000

// CheckClientIdentities refuses a number of client identities below 1
// (0 is the default, 1, unless given) or above MaxClientIdentities.
func CheckClientIdentities(n int, given bool) error {
	switch {
	case n < 0 || given && n < 1:
		return Errorf(Settings.ClientIdentities, n, "must be at least 1")
	case n > MaxClientIdentities:
		return Errorf(Settings.ClientIdentities, n, "must be between 1 and %d", MaxClientIdentities)
	}
	return nil
}

// Scope is which ends a run has, for the settings that configure one
// (Setting.Ends).
type Scope struct {
	Target     bool // an external server (target), not the built-in one
	Proxy      bool // a proxy between client and server
	Throughput bool // throughput cases, which speak the exchange to the built-in server too
	Identity   bool // the built-in server's identity is given (identity)
}

// Check refuses setting s, given, where the end it configures is not in
// the run.
func (sc Scope) Check(s *Setting) error {
	switch {
	case sc.Target:
		if s.Ends == BuiltinServer {
			return Errorf(s, nil, "%s configures the built-in server; it does not apply with %s", s, Settings.Target)
		}
	case s.Ends == Target|Proxy:
		// Through a proxy, the exchange matters to the built-in
		// server too: a bumping HTTP proxy parses it; throughput
		// cases speak it to the built-in server.
		if !sc.Proxy && !sc.Throughput {
			return Errorf(s, nil, "%s applies to an external server or a proxy: add %s host:port or %s", s, Settings.Target, Settings.Proxy)
		}
	case s.Ends == Target:
		// With identity, ca and sni say how the clients verify the
		// given server identity.
		if !s.WithIdentity || !sc.Identity {
			return Errorf(s, nil, "%s applies to an external server: add %s host:port", s, Settings.Target)
		}
	}
	return nil
}

// Sharding is what the rules of a sharded run read: the setting that
// shards it and what else the run is given.
type Sharding struct {
	By         *Setting // shard or shards, whichever was given
	Throughput bool
	// Unsplittable are the settings given that a sharded run cannot
	// split (side b, a proxy, a rate search, a target error), in the
	// order the messages name the first.
	Unsplittable []*Setting
	Target       bool // an external server is given
	Timed        bool // each case's measured time is given
	StartAt      bool // a common start is given
}

// Check refuses a sharded run that its shards cannot split into shares
// of one server's load, measured together.
func (sh Sharding) Check() error {
	switch {
	case sh.Throughput:
		return Errorf(sh.By, nil, "a sharded run measures handshake cases; throughput cases cannot be split: drop %s throughput", Settings.Mode)
	case len(sh.Unsplittable) > 0:
		u := sh.Unsplittable[0]
		return Errorf(sh.By, nil, "%s cannot be used in a sharded run, whose shards each measure one share of one server's load in cases of a fixed length: drop %s", u, u)
	case !sh.Target:
		return Errorf(sh.By, nil, "%s needs %s HOST:PORT: the built-in server runs beside each shard, so the shards would each load their own instead of one server", sh.By, Settings.Target)
	case !sh.Timed:
		return Errorf(sh.By, nil, "%s needs %s (each case's measured time): the cases of a sharded run have a fixed length, from which every shard computes when each begins", sh.By, Settings.Duration)
	case !sh.StartAt:
		return Errorf(sh.By, nil, "%s needs %s TIME, the same RFC 3339 time for every shard (e.g. a minute from now), at which they all begin", sh.By, Settings.StartAt)
	}
	return nil
}
