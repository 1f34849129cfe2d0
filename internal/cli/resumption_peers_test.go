package cli_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
)

// TestRunResumptionNginx: run --resumption tickets,session-id against
// nginx with tickets and a shared session cache measures both ways side
// by side: every resume case resumes, the session-id ones by the cache
// alone, named .../sid/... and recorded as such.
func TestRunResumptionNginx(t *testing.T) {
	t.Parallel()
	peers.Require(t, "nginx")
	dir := t.TempDir()
	layout, err := pki.Init(pki.InitOptions{Dir: filepath.Join(dir, "pki")})
	if err != nil {
		t.Fatal(err)
	}
	n := peers.NginxT(t, peers.NginxConfig{
		Cert: layout.ServerCerts[pki.ECDSAP256], Key: layout.ServerKeys[pki.ECDSAP256],
		Tickets: true, SessionCache: "shared:SSL:10m",
	})
	out := filepath.Join(dir, "r.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	err = cli.Run(ctx, []string{"run", "--target", n.Addr, "--ca", layout.RootCert, "--sni", "localhost", "--alpn", "http/1.1",
		"--tls", "1.2", "--resume", "off,on", "--resumption", "tickets,session-id", "--concurrency", "8",
		"--handshakes", "32", "--iterations", "2", "--warmup", "1", "--format", "json", "--out", out}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	recs, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"handshake/tls1.2/full/c8": "tickets", "handshake/tls1.2/full/sid/c8": "session-id",
		"handshake/tls1.2/resume/c8": "tickets", "handshake/tls1.2/resume/sid/c8": "session-id",
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for _, r := range recs {
		way, ok := want[r.Name]
		if !ok || r.Resumption != way || r.Params["resumption"] != way {
			t.Errorf("%s: resumption %q, params %v", r.Name, r.Resumption, r.Params)
		}
		if r.Resume && (r.ResumptionRate != 1 || r.Resumed != r.Handshakes) {
			t.Errorf("%s: resumed %d of %d", r.Name, r.Resumed, r.Handshakes)
		}
		if r.Group != "x25519" {
			// A resumed session reports its full handshake's group, by
			// ticket (crypto/tls) and by ID alike.
			t.Errorf("%s: group %q, want x25519", r.Name, r.Group)
		}
		if !r.Resume && r.Resumed != 0 {
			t.Errorf("%s: %d resumed in a full case", r.Name, r.Resumed)
		}
		t.Logf("%s: %d of %d resumed, mean %.1f µs per connection, group %s", r.Name, r.Resumed, r.Handshakes, r.MeanUS, r.Group)
	}
}
