package runner_test

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

func writeTicketKey(t *testing.T, path string) {
	t.Helper()
	k := make([]byte, 32)
	rand.Read(k)
	if err := os.WriteFile(path, []byte(hex.EncodeToString(k)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestTicketKeysRotatedAfterWarmup: the built-in child server's ticket
// keys are replaced after the first measured iteration of each case, so
// that the sessions the client holds stop resuming. At concurrency 4 the
// second iteration falls below --min-resumption: the case fails, naming
// that iteration, its rate and what the server declined, and its record
// is still emitted, marked failed. At concurrency 1 only one handshake
// of 128 falls back to a full one (99.2%): above the bar, the drift is a
// note and the case passes.
func TestTicketKeysRotatedAfterWarmup(t *testing.T) {
	keys := filepath.Join(t.TempDir(), "ticket.keys")
	writeTicketKey(t, keys)
	p := smallPlan()
	p.Versions = []uint16{tls.VersionTLS13}
	p.Resume = []bool{true}
	p.Concurrency = []int{4, 1}
	p.Iterations = 3
	p.Server.TicketKeysFile = keys
	p.Progress = func(pr runner.CaseProgress) {
		if !pr.Warmup && pr.Iteration == 1 {
			writeTicketKey(t, keys)
			// The server looks at the file at most once a second.
			time.Sleep(1200 * time.Millisecond)
		}
	}
	var recs []results.Record
	err := runner.Run(context.Background(), p, func(r *results.Record) error {
		recs = append(recs, *r)
		return nil
	})
	var failed *runner.FailedCases
	if !errors.As(err, &failed) || len(failed.Errs) != 1 {
		t.Fatalf("error %v: want one failed case", err)
	}
	var re *loadgen.ResumptionError
	if !errors.As(err, &re) || !re.Measured || len(re.Fell) != 1 || re.Fell[0].Iteration != 2 {
		t.Fatalf("error %v: want a resumption failure in measured iteration 2 only", err)
	}
	msg := err.Error()
	// The four sessions the client holds are declined once each (or
	// fewer, when a fresh ticket replaced one before its turn).
	if f := re.Fell[0]; f.Total != 128 || f.Resumed < 124 || f.Resumed > 126 || f.ServerDeclined["unknown"] != 128-f.Resumed {
		t.Errorf("iteration 2: %+v, want 2 to 4 of 128 declined as unknown", f)
	}
	for _, want := range []string{"handshake/tls1.3/resume/c4", "iteration 2 resumed 9", " of 128; the server declined unknown ",
		"--min-resumption 0.99", "ticket keys rotated"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "--ticket-reuse single") {
		t.Errorf("message %q blames single-use tickets for a key rotation", msg)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want both cases'", len(recs))
	}
	for _, rec := range recs {
		notes := strings.Join(rec.Notes, "\n")
		switch rec.Concurrency {
		case 4:
			if rec.Verdict != "failed" || !strings.Contains(notes, "failed: resumption fell below") || rec.Iterations != 3 {
				t.Errorf("%s: verdict %q, %d iterations, notes %q: want the whole record marked failed with the reason", rec.Name, rec.Verdict, rec.Iterations, notes)
			}
		case 1:
			if rec.Verdict != "" || !strings.Contains(notes, "resumption drifted below 100%") || !strings.Contains(notes, "iteration 2 resumed 99.2% (127 of 128") {
				t.Errorf("%s: verdict %q, notes %q: want a pass with a drift note", rec.Name, rec.Verdict, notes)
			}
		}
	}
}
