package plan

import (
	"crypto/tls"
	"slices"
	"strconv"

	"github.com/tlsbench/tlsbench/tlsconf"
)

// The rules of a handshake plan's values: its axes' and its per-case
// counts', whatever server it measures.

// MaxHandshakeConcurrency is the largest wave of a handshake case.
const MaxHandshakeConcurrency = 4096

// DefaultTargetError is tlsbench run's precision goal: a case measures
// past its iterations until the half-width of the 99.9% confidence
// interval is at most this share of the mean, within the case time. It
// is what a 2-core machine reaches in the default 3 s for most cases of
// the default matrix when nothing else loads it: 14 of 16 in a run from
// a fresh clone, where 5% was reached by 2 and 4 of 16 and 2% by 1 case
// in 100, so that nearly every row was marked and the mark said nothing.
// A run that wants more asks for it (--target-error 5% --case-time 6s).
// Other load on the machine widens the error far beyond any target; the
// report says so rather than the default hiding it. BENCHMARKS.md has
// the figures.
const DefaultTargetError = 0.08

// CheckConcurrency refuses a handshake plan without a level of
// concurrency (nor rates, which replace it) or with one out of range.
func CheckConcurrency(levels []int, rates bool) error {
	if len(levels) == 0 && !rates {
		return Errorf(Settings.Concurrency, nil, "no level given")
	}
	for _, c := range levels {
		if c < 1 || c > MaxHandshakeConcurrency {
			return Errorf(Settings.Concurrency, c, "must be between 1 and %d", MaxHandshakeConcurrency)
		}
	}
	return nil
}

// CheckTransports refuses a transport a case cannot run over.
func CheckTransports(transports []string) error {
	for _, t := range transports {
		if !slices.Contains(transportNames(), t) {
			return Errorf(Settings.Transport, strconv.Quote(t), "must be tcp4, tcp6, memory or quic")
		}
	}
	return nil
}

// CheckCiphers refuses a cipher name tlsconf does not know.
func CheckCiphers(ciphers []string) error {
	for _, c := range ciphers {
		if _, err := tlsconf.ParseCipher(c); err != nil {
			return Errorf(Settings.Cipher, nil, "%v", err)
		}
	}
	return nil
}

// CheckGroups refuses a TLS 1.3-only group (the post-quantum hybrids,
// which TLS 1.2 cannot negotiate) beside TLS 1.2; a zero group is Go's
// defaults.
func CheckGroups(groups []tls.CurveID, versions []uint16) error {
	for _, g := range groups {
		for _, v := range versions {
			if g != 0 && v < tls.VersionTLS13 && tls13OnlyGroup(g) {
				return Errorf(Settings.Groups, tlsconf.GroupName(g), "a TLS 1.3-only group cannot be used with %s 1.2; run them separately", Settings.TLS)
			}
		}
	}
	return nil
}

func tls13OnlyGroup(g tls.CurveID) bool {
	switch g {
	case tls.X25519MLKEM768, tls.SecP256r1MLKEM768, tls.SecP384r1MLKEM1024:
		return true
	}
	return false
}

// Counts are a handshake plan's per-case settings: how much each case
// measures, and what it tolerates.
type Counts struct {
	Handshakes, Iterations, Warmup int
	// MaxConcurrency is the plan's largest wave; Timed says its
	// iterations are timed (duration), running waves until each ends.
	MaxConcurrency int
	Timed          bool
	MinResumption  float64
	MaxErrorRate   float64
	TargetError    float64
	// ClientIdentities are the client certificates rotated among, which
	// only Mutual sends.
	ClientIdentities int
	Mutual           bool
	SessionPool      int
}

// Check refuses counts out of range, and a wave larger than an
// iteration, which never happens: such a case would be named for a
// concurrency it never reached.
func (c Counts) Check() error {
	if c.Handshakes < 1 {
		return Errorf(Settings.Handshakes, c.Handshakes, "must be at least 1")
	}
	if c.Iterations < 1 {
		return Errorf(Settings.Iterations, c.Iterations, "must be at least 1")
	}
	if n := c.MaxConcurrency; n > c.Handshakes && !c.Timed {
		return Errorf(Settings.Concurrency, n, "more than the %d handshakes of an iteration (%s), so no wave would reach it: raise %s to at least %d, or lower %s", c.Handshakes, Settings.Handshakes, Settings.Handshakes, n, Settings.Concurrency)
	}
	if c.Warmup < 0 {
		return Errorf(Settings.Warmup, c.Warmup, "must be 0 or more")
	}
	if c.MinResumption < 0 || c.MinResumption > 1 {
		return Errorf(Settings.MinResumption, c.MinResumption, "must be between 0 and 1")
	}
	if c.MaxErrorRate < 0 || c.MaxErrorRate > 1 {
		return Errorf(Settings.MaxErrorRate, c.MaxErrorRate, "must be between 0%% and 100%%")
	}
	if err := CheckClientIdentities(c.ClientIdentities, false); err != nil {
		return err
	}
	if c.ClientIdentities > 1 && !c.Mutual {
		return Errorf(Settings.ClientIdentities, c.ClientIdentities, "client certificates are only sent with %s", Settings.Mutual)
	}
	if c.SessionPool < 0 {
		return Errorf(Settings.SessionPool, c.SessionPool, "must be at least 1")
	}
	if !(c.TargetError >= 0 && c.TargetError < 1) {
		return Errorf(Settings.TargetError, strconv.FormatFloat(c.TargetError*100, 'g', -1, 64)+"%", "must be from 0%% (none) to below 100%%, e.g. 5%%")
	}
	return nil
}
