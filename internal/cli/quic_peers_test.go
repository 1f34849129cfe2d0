package cli_test

import (
	"testing"

	"github.com/tlsbench/tlsbench/internal/peers"
)

// TestRunTargetNGTCP2: tlsbench's client against a QUIC server of
// another stack (ngtcp2's example server, HTTP/3 with GnuTLS) resumes
// every resume case's handshakes, and with --early-data on sends its
// request as early data on every resumed connection. Each one offered is
// accepted or rejected, and a rejection fails nothing (the request is
// sent again); but GnuTLS refuses early data whose ticket age the client
// overstates, as crypto/tls's own clock would on nearly every
// connection, so that nine in ten accepted shows the client's ticket
// ages hold. The server's own counts are unknown, never made up.
func TestRunTargetNGTCP2(t *testing.T) {
	t.Parallel()
	cert, key, ca := peerPKI(t)
	s := peers.NGTCP2T(t, peers.NGTCP2Config{Cert: cert, Key: key})
	msg, recs, err := runTarget(t, s.Addr, ca, "--transport", "quic", "--request", "http", "--tls", "1.3",
		"--resume", "off,on", "--early-data", "off,on", "--concurrency", "1,4",
		"--handshakes", "16", "--warmup", "1", "--iterations", "3", "--case-time", "0")
	if err != nil {
		t.Fatalf("run: %s", msg)
	}
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8 (4 of them full with early data, not runnable)", len(recs))
	}
	var early int
	for _, r := range recs {
		if r.Params["resume"] == "off" && r.Params["early_data"] == "on" {
			if r.Handshakes != 0 {
				t.Errorf("%s: measured; a full case with early data is not runnable", r.Name)
			}
			continue
		}
		if r.Transport != "quic" || r.QUICVersion != "v1" || r.Request != "http" || r.EarlyDataPolicy != "" || r.Verdict != "" {
			t.Errorf("%s: transport %q, version %q, request %q, policy %q, verdict %q", r.Name, r.Transport, r.QUICVersion, r.Request, r.EarlyDataPolicy, r.Verdict)
		}
		if r.Resume && r.ResumptionRate < 0.99 || !r.Resume && r.Resumed != 0 {
			t.Errorf("%s: resumed %d of %d", r.Name, r.Resumed, r.Handshakes)
		}
		if r.ServerEarlyDataAccepted != nil || r.ServerResumed != nil {
			t.Errorf("%s: server counts of an external server", r.Name)
		}
		if r.Params["early_data"] != "on" {
			continue
		}
		early++
		if r.EarlyDataOffered == nil || *r.EarlyDataOffered != r.Resumed || *r.EarlyDataOffered == 0 {
			t.Errorf("%s: early data offered %v on %d resumed handshakes: want all of them", r.Name, r.EarlyDataOffered, r.Resumed)
		} else if *r.EarlyDataAccepted+*r.EarlyDataRejected != *r.EarlyDataOffered {
			t.Errorf("%s: %d accepted and %d rejected of %d offered", r.Name, *r.EarlyDataAccepted, *r.EarlyDataRejected, *r.EarlyDataOffered)
		} else if 4**r.EarlyDataAccepted < 3**r.EarlyDataOffered {
			// An age overstated by the client's clock gets (nearly) every
			// offer refused; a few refusals are GnuTLS's window at a
			// second's boundary, which a loaded machine's handshakes
			// (tens of milliseconds under the race detector) cross now
			// and then: 41 and 43 of 48 were seen.
			t.Errorf("%s: %d of %d offers of early data accepted: want three in four (the ticket's age overstated?)", r.Name, *r.EarlyDataAccepted, *r.EarlyDataOffered)
		}
		t.Logf("%s: early data offered %d, accepted %d, rejected %d; first response p50 %.0f µs", r.Name,
			*r.EarlyDataOffered, *r.EarlyDataAccepted, *r.EarlyDataRejected, r.Phases["first_response"].P50US)
	}
	if early != 2 {
		t.Errorf("%d resumed early-data cases, want 2", early)
	}
}
