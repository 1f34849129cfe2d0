package runner_test

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// TestBuiltinProxyLegsFollowResume: through the built-in proxy a full
// case is full on both legs (the server resumes nothing, so its key
// signs every handshake) and a resume case resumes on both; the record
// says so.
func TestBuiltinProxyLegsFollowResume(t *testing.T) {
	t.Parallel()
	p := runner.Plan{
		Versions: []uint16{tls.VersionTLS13, tls.VersionTLS12}, Resume: []bool{false, true}, Concurrency: []int{1},
		KeyTypes:   []pki.KeyType{pki.RSA2048, pki.ECDSAP256},
		Handshakes: 8, Iterations: 2, Warmup: 1, MinResumption: 0.99, ConnTimeout: 20 * time.Second,
		Proxy: builtinProxy, ChildEnv: []string{testchild.Env()},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	recs, err := collectRecs(t, func(emit func(*results.Record) error) error { return runner.Run(ctx, p, emit) })
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8", len(recs))
	}
	for _, r := range recs {
		if r.ServerResumed == nil || r.Handshakes != 16 {
			t.Fatalf("%s: %d handshakes, server_resumed %v", r.Name, r.Handshakes, r.ServerResumed)
		}
		notes := strings.Join(r.Notes, "; ")
		origin, originResumed := r.Extra["proxy_origin_handshakes"], r.Extra["proxy_origin_resumed"]
		if origin != 16 {
			t.Errorf("%s: the proxy made %v origin handshakes, want one per connection", r.Name, origin)
		}
		if !r.Resume {
			if *r.ServerResumed != 0 || originResumed != 0 {
				t.Errorf("%s: a full case resumed %d on the server (proxy counted %v): the server's key signed nothing", r.Name, *r.ServerResumed, originResumed)
			}
			if !strings.Contains(notes, "both legs make full handshakes") {
				t.Errorf("%s: notes %q do not say both legs were full", r.Name, notes)
			}
			continue
		}
		if *r.ServerResumed != 16 || originResumed != 16 {
			t.Errorf("%s: a resume case resumed %d on the server (proxy counted %v), want every one", r.Name, *r.ServerResumed, originResumed)
		}
		if !strings.Contains(notes, "both legs resume") {
			t.Errorf("%s: notes %q do not say both legs resumed", r.Name, notes)
		}
	}
}
