package cli_test

import (
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/cli"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/results"
)

// TestMixAgainstNginx: nginx with session tickets resumes exactly half
// of a mix's handshakes in TLS 1.2 and 1.3, as the client counts them
// (nginx cannot be asked for its own count), and the record splits them
// into parts.
func TestMixAgainstNginx(t *testing.T) {
	t.Parallel()
	cert, key, ca := peerPKI(t)
	n := peers.NginxT(t, peers.NginxConfig{Cert: cert, Key: key, Tickets: true})
	msg, recs, err := runTarget(t, n.Addr, ca, "--tls", "1.2,1.3", "--resume-ratio", "0.5",
		"--concurrency", "4", "--handshakes", "32", "--warmup", "1", "--iterations", "2", "--case-time", "0")
	if err != nil {
		t.Fatalf("exit %d: %s", cli.ExitCode(err), msg)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	for _, r := range recs {
		if !strings.Contains(r.Name, "/mix50/") || r.Handshakes != 64 || r.Resumed != 32 || r.Verdict != "" {
			t.Errorf("%s: %d of %d resumed, verdict %q: want 32 of 64 and a pass", r.Name, r.Resumed, r.Handshakes, r.Verdict)
		}
		if r.ResumeRatio == nil || *r.ResumeRatio != 0.5 || r.Parts[results.PartResumed].Handshakes != 32 || r.Parts[results.PartFull].Handshakes != 32 {
			t.Errorf("%s: resume_ratio %v, parts %+v: want 0.5 and 32 of each", r.Name, r.ResumeRatio, r.Parts)
		}
	}
}

// TestMixFailsAgainstServerWithoutResumption: openssl s_server with
// neither tickets nor a session cache resumes nothing: a mix fails its
// gate (exit 1) naming --resume-ratio and what the client saw, and its
// record is written, marked failed.
func TestMixFailsAgainstServerWithoutResumption(t *testing.T) {
	t.Parallel()
	cert, key, ca := peerPKI(t)
	s := peers.OpenSSL(t, "-cert", cert, "-key", key, "-www", "-no_ticket", "-no_cache")
	msg, recs, err := runTarget(t, s.Addr, ca, "--tls", "1.3", "--resume-ratio", "0.5",
		"--concurrency", "2", "--handshakes", "16", "--warmup", "0", "--iterations", "2", "--case-time", "0")
	if cli.ExitCode(err) != 1 {
		t.Fatalf("exit %d (%s), want 1", cli.ExitCode(err), msg)
	}
	for _, want := range []string{"handshake/tls1.3/mix50/c2", "missed --resume-ratio 0.5", "iteration 1: the client saw 0 of 16 resumed, want 8"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if len(recs) != 1 || recs[0].Verdict != "failed" {
		t.Fatalf("%d records: want the case's, marked failed", len(recs))
	}
}
