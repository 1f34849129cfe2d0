package loadgen_test

import (
	"context"
	"crypto/tls"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// eventLog records, in order, what a case reports: its iterations (warm
// or measured) and its Measuring hook's calls.
type eventLog struct {
	mu     sync.Mutex
	events []string
}

func (l *eventLog) add(e string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

func (l *eventLog) progress(side string) func(measure.Progress) {
	return func(p measure.Progress) {
		if p.Warmup {
			l.add(side + "warm")
		} else {
			l.add(side + "iter")
		}
	}
}

func (l *eventLog) measuring(side string) func(bool) {
	return func(begin bool) {
		if begin {
			l.add(side + "begin")
		} else {
			l.add(side + "end")
		}
	}
}

// TestMeasuringBracketsMeasuredIterations: the hook a profile starts
// and stops on is called after priming and the warm-up, before the first
// measured iteration, and after the last, once each.
func TestMeasuringBracketsMeasuredIterations(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	for _, resume := range []bool{false, true} {
		log := &eventLog{}
		hc := s.handshakeCase("measuring", tls.VersionTLS13, resume, 2)
		hc.Warmup, hc.Iterations = 2, 3
		hc.Progress, hc.Measuring = log.progress(""), log.measuring("")
		if _, err := loadgen.RunHandshakes(context.Background(), hc); err != nil {
			t.Fatal(err)
		}
		want := []string{"warm", "warm", "begin", "iter", "iter", "iter", "end"}
		if !slices.Equal(log.events, want) {
			t.Errorf("resume %v: events %v, want %v", resume, log.events, want)
		}
	}
}

// TestMeasuringNotCalledWhenWarmupFails: a case that never reaches its
// measured iterations starts no profile.
func TestMeasuringNotCalledWhenWarmupFails(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *tls.Config) { c.SessionTicketsDisabled = true })
	log := &eventLog{}
	hc := s.handshakeCase("no-resume", tls.VersionTLS13, true, 2)
	hc.Measuring = log.measuring("")
	_, err := loadgen.RunHandshakes(context.Background(), hc)
	var re *measure.ResumptionError
	if !errors.As(err, &re) {
		t.Fatalf("%v, want a ResumptionError", err)
	}
	if len(log.events) != 0 {
		t.Errorf("events %v, want none", log.events)
	}
}

// TestMeasuringInterleaved: every side's hook begins after every side's
// warm-up and ends after every side's last measured iteration.
func TestMeasuringInterleaved(t *testing.T) {
	t.Parallel()
	log := &eventLog{}
	sides := interleavedCase("measuring", &dialLog{}, startServer(t, nil), startServer(t, nil))
	for i, name := range []string{"a.", "b."} {
		sides[i].Progress, sides[i].Measuring = log.progress(name), log.measuring(name)
	}
	if _, err := loadgen.RunInterleaved(context.Background(), sides); err != nil {
		t.Fatal(err)
	}
	ev := log.events
	first := func(suffix string) int {
		return slices.IndexFunc(ev, func(e string) bool { return strings.HasSuffix(e, suffix) })
	}
	last := func(suffix string) int {
		i := len(ev) - 1
		for i >= 0 && !strings.HasSuffix(ev[i], suffix) {
			i--
		}
		return i
	}
	begins, ends := slices.Index(ev, "b.begin"), slices.Index(ev, "a.end")
	if slices.Index(ev, "a.begin") > begins || begins < last("warm") || begins > first("iter") ||
		ends < last("iter") || slices.Index(ev, "b.end") != len(ev)-1 {
		t.Errorf("events %v: want a.begin, b.begin between the warm-up and the first measured iteration, a.end, b.end after the last", ev)
	}
}

// TestMeasuringThroughput: a throughput case's hook brackets its
// measured iterations, the warm-up left out.
func TestMeasuringThroughput(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	log := &eventLog{}
	tc := throughputCase(s.addr, tlsconf.Client(tlsconf.ClientOptions{RootCAs: s.roots, ServerName: "localhost"}), loadgen.DirectionDownload)
	tc.Warmup, tc.Iterations = 1, 2
	tc.Progress = func(p loadgen.ThroughputProgress) {
		if p.Warmup {
			log.add("warm")
		} else {
			log.add("iter")
		}
	}
	tc.Measuring = log.measuring("")
	if _, err := loadgen.RunThroughput(context.Background(), tc); err != nil {
		t.Fatal(err)
	}
	if want := []string{"warm", "begin", "iter", "iter", "end"}; !slices.Equal(log.events, want) {
		t.Errorf("events %v, want %v", log.events, want)
	}
}
