package loadgen_test

import (
	"context"
	"crypto/tls"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
)

// cliWords names the stop settings as a command line would, to show
// that the notes speak the caller's words.
var cliWords = client.Words{Names: map[string]string{"TargetError": "--target-error", "MaxDuration": "--case-time"}}

// TestTargetError: what ends a case's measured iterations, with and
// without a target error, and the notes of a target not reached.
func TestTargetError(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	tests := []struct {
		name       string
		iterations int
		target     float64
		caseTime   time.Duration
		cap        int
		given      bool // IterationsGiven
		stopped    string
		// kept: the exact number of iterations; 0 with atLeast.
		kept, atLeast int
		notes         []string
		noNote        string
	}{
		{name: "no target", iterations: 3, stopped: results.StoppedIterations, kept: 3, noNote: "not reached"},
		{name: "no target, time cuts it", iterations: 1000, caseTime: 50 * time.Millisecond, stopped: results.StoppedCaseTime, atLeast: 2,
			notes: []string{"stopped by --case-time 50ms after "}, noNote: "not reached"},
		// Loose enough for any machine: the 99.9% interval of 20
		// iterations is wider than the mean only when one iteration
		// took many times as long as the others.
		{name: "target reached", iterations: 20, target: 1, caseTime: 10 * time.Minute, stopped: results.StoppedTargetError, kept: 20,
			noNote: "not reached"},
		{name: "target not reached in time", iterations: 2, target: 1e-6, caseTime: 200 * time.Millisecond, stopped: results.StoppedCaseTime, atLeast: 2,
			notes: []string{"--target-error 0.0001% not reached: the error was ", "% of the mean after ", " iterations, stopped by --case-time 200ms"}},
		{name: "time cuts the minimum", iterations: 1000, target: 1e-6, caseTime: 50 * time.Millisecond, stopped: results.StoppedCaseTime, atLeast: 2,
			notes: []string{"--target-error 0.0001% not reached: the error was ", " of 1000 iterations, stopped by --case-time 50ms"}, noNote: "stopped by --case-time 50ms after"},
		{name: "iterations given, time does not cut them", iterations: 5, caseTime: time.Nanosecond, given: true, stopped: results.StoppedIterations, kept: 5,
			noNote: "stopped by"},
		{name: "iterations given, time cuts those past them", iterations: 3, target: 1e-6, caseTime: time.Nanosecond, given: true, stopped: results.StoppedCaseTime, kept: 3,
			notes: []string{"--target-error 0.0001% not reached: the error was ", " after 3 iterations, stopped by --case-time 1ns"}},
		{name: "cap", iterations: 2, target: 1e-6, cap: 4, stopped: results.StoppedIterationCap, kept: 4,
			notes: []string{"--target-error 0.0001% not reached: the error was ", " after 4 iterations, the most a case measures"}},
		{name: "the minimum above the cap", iterations: 5, target: 1e-6, cap: 3, stopped: results.StoppedIterationCap, kept: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hc := s.handshakeCase("target/"+tt.name, tls.VersionTLS13, false, 4)
			hc.Iterations, hc.TargetError, hc.MaxDuration, hc.Words = tt.iterations, tt.target, tt.caseTime, cliWords
			hc.IterationsGiven = tt.given
			if tt.cap > 0 {
				loadgen.SetIterationCap(&hc, tt.cap)
			}
			rec, err := loadgen.RunHandshakes(context.Background(), hc)
			if err != nil {
				t.Fatal(err)
			}
			if rec.StoppedBy != tt.stopped {
				t.Errorf("stopped by %q, want %q (notes %q)", rec.StoppedBy, tt.stopped, rec.Notes)
			}
			if (tt.kept > 0 && rec.Iterations != tt.kept) || rec.Iterations < tt.atLeast || len(rec.SamplesUS) != rec.Iterations {
				t.Errorf("%d iterations (%d samples), want %d (at least %d)", rec.Iterations, len(rec.SamplesUS), tt.kept, tt.atLeast)
			}
			if (tt.target > 0) != (rec.TargetError != nil) || (rec.TargetError != nil && *rec.TargetError != tt.target) {
				t.Errorf("record's target error %v, want %v", rec.TargetError, tt.target)
			}
			if tt.stopped == results.StoppedTargetError {
				if e := *rec.ErrorUS / rec.MeanUS; !(e <= tt.target) {
					t.Errorf("stopped by the target at error %.3f of the mean, above %v", e, tt.target)
				}
			}
			notes := strings.Join(rec.Notes, "\n")
			for _, want := range tt.notes {
				if !strings.Contains(notes, want) {
					t.Errorf("notes %q lack %q", notes, want)
				}
			}
			if tt.noNote != "" && strings.Contains(notes, tt.noNote) {
				t.Errorf("notes %q say %q", notes, tt.noNote)
			}
		})
	}
}

// TestCaseTimeBoundsWarmup: the warm-up stops starting iterations once
// it has taken a quarter of the case time, after its first, and says so;
// without a case time it runs every one. A resume case's warm-up still
// holds to the minimum resumption.
func TestCaseTimeBoundsWarmup(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	for _, tt := range []struct {
		name     string
		caseTime time.Duration
		resume   bool
		warmed   int
	}{
		{"cut", time.Nanosecond, false, 1},
		{"cut, resumed", time.Nanosecond, true, 1},
		{"no case time", 0, false, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hc := s.handshakeCase("warmup/"+tt.name, tls.VersionTLS13, tt.resume, 4)
			hc.Warmup, hc.MaxDuration, hc.Words = 3, tt.caseTime, cliWords
			warmed := 0
			hc.Progress = func(p measure.Progress) {
				if p.Warmup {
					warmed++
				}
			}
			rec, err := loadgen.RunHandshakes(context.Background(), hc)
			if err != nil {
				t.Fatal(err)
			}
			if warmed != tt.warmed {
				t.Errorf("%d warm-up iterations, want %d", warmed, tt.warmed)
			}
			notes := strings.Join(rec.Notes, "\n")
			if cut := strings.Contains(notes, "warm-up cut short after 1 of 3 iterations by --case-time 1ns"); cut != (tt.warmed < 3) {
				t.Errorf("notes %q: cut %v, want %v", notes, cut, tt.warmed < 3)
			}
			if tt.resume && rec.ResumptionRate < measure.DefaultMinResumption {
				t.Errorf("resumed %v", rec.ResumptionRate)
			}
		})
	}
}

// TestStoppedEarly: a case interrupted, or whose server went away, says
// so in StoppedBy, and keeps the iterations before.
func TestStoppedEarly(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		stopped string
	}{
		{"interrupted", results.StoppedInterrupted},
		{"server gone", results.StoppedFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := startServer(t, nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			hc := s.handshakeCase("stopped/"+tt.name, tls.VersionTLS13, false, 2)
			hc.Iterations, hc.TargetError = 10, 0.5
			hc.Progress = func(p measure.Progress) {
				if !p.Warmup && p.Iteration == 2 {
					if tt.stopped == results.StoppedInterrupted {
						cancel()
					} else {
						s.stop()
					}
				}
			}
			rec, err := loadgen.RunHandshakes(ctx, hc)
			if err == nil || rec == nil {
				t.Fatalf("record %v, error %v: want both", rec, err)
			}
			if rec.StoppedBy != tt.stopped || rec.Iterations != 2 {
				t.Errorf("stopped by %q after %d iterations, want %q after 2", rec.StoppedBy, rec.Iterations, tt.stopped)
			}
			if interrupted := errors.Is(err, context.Canceled); interrupted != (tt.stopped == results.StoppedInterrupted) {
				t.Errorf("error %v", err)
			}
			if failed := rec.Verdict == measure.VerdictFailed; failed != (tt.stopped == results.StoppedFailed) {
				t.Errorf("verdict %q", rec.Verdict)
			}
		})
	}
}

func TestTargetErrorValidated(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	for _, v := range []float64{-0.01, math.NaN(), math.Inf(1)} {
		hc := s.handshakeCase("bad-target", tls.VersionTLS13, false, 1)
		hc.TargetError = v
		_, err := loadgen.RunHandshakes(context.Background(), hc)
		var fe *field.Error
		if !errors.As(err, &fe) || fe.Field != "TargetError" {
			t.Errorf("target %v: error %v, want one naming TargetError", v, err)
		}
	}
}
