package compare

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

// TestCompareMismatch: a pair whose sides share a name but differ in what
// the work costs is not comparable (no ratio, no change, no verdict that
// reads as speed), whatever the difference: each field on its own.
func TestCompareMismatch(t *testing.T) {
	t.Parallel()
	slow := shift(tenSamples, 1.5)
	tests := []struct {
		name  string
		edit  func(r *results.Record)
		tput  bool
		field string
	}{
		{"group", func(r *results.Record) { r.Group = "X25519MLKEM768" }, false, "group: X25519 vs X25519MLKEM768"},
		{"key type", func(r *results.Record) { r.KeyType = "rsa-2048" }, false, "key_type: ecdsa-p256 vs rsa-2048"},
		{"version", func(r *results.Record) { r.TLSVersion = "1.2" }, false, "tls_version: 1.3 vs 1.2"},
		{"mutual", func(r *results.Record) { r.Mutual = true }, false, "mutual: false vs true"},
		{"transport", func(r *results.Record) { r.Transport = "memory" }, false, "transport: tcp vs memory"},
		{"target", func(r *results.Record) { r.Target = "127.0.0.1:443" }, false, "target: the built-in server vs 127.0.0.1:443"},
		{"session store", func(r *results.Record) { r.SessionStore = "stateful" }, false, "session_store: tickets vs stateful"},
		{"session store not recorded", func(r *results.Record) { r.SessionStore = "" }, false, "session_store: tickets vs not recorded"},
		{"cipher", func(r *results.Record) { r.Cipher = "TLS_CHACHA20_POLY1305_SHA256" }, true, "cipher: TLS_AES_128_GCM_SHA256 vs TLS_CHACHA20_POLY1305_SHA256"},
		{"ktls tx", func(r *results.Record) { r.KTLSTX = results.Bool(false) }, true, "ktls_tx: true vs false"},
		{"server ktls rx", func(r *results.Record) { r.Extra["server_ktls_rx"] = 0 }, true, "server kTLS rx: 100% of connections vs 0% of connections"},
		{"client ktls tx partly", func(r *results.Record) { r.Extra["client_ktls_tx"] = 0.5 }, true, "client kTLS tx: 100% of connections vs 50% of connections"},
		{"kind", func(r *results.Record) { r.Kind = results.KindThroughput }, false, "kind: handshake vs throughput"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base, cand := costRecord(tt.tput, tenSamples), costRecord(tt.tput, slow)
			tt.edit(&cand)
			for _, allow := range []bool{false, true} {
				c := Compare([]results.Record{base}, []results.Record{cand}, CompareOptions{AllowMismatch: allow})
				cc := c.Cases[0]
				if len(cc.Mismatch) != 1 || cc.Mismatch[0] != tt.field {
					t.Fatalf("allow=%v: mismatch %q, want [%q]", allow, cc.Mismatch, tt.field)
				}
				kindDiffers := tt.name == "kind"
				if !allow || kindDiffers {
					if cc.Verdict != NotComparable || !math.IsNaN(cc.Ratio) || !math.IsNaN(cc.Change) || !math.IsNaN(cc.P) {
						t.Errorf("allow=%v: verdict %q ratio %v change %v p %v, want not comparable without numbers", allow, cc.Verdict, cc.Ratio, cc.Change, cc.P)
					}
					if len(c.Mismatched()) != 1 {
						t.Errorf("allow=%v: Mismatched() = %d pairs", allow, len(c.Mismatched()))
					}
					continue
				}
				if cc.Verdict == NotComparable || len(c.Mismatched()) != 0 {
					t.Errorf("--allow-mismatch: verdict %q, %d mismatched", cc.Verdict, len(c.Mismatched()))
				}
			}
		})
	}
	// The same settings on both sides: comparable.
	c := Compare([]results.Record{costRecord(true, tenSamples)}, []results.Record{costRecord(true, slow)}, CompareOptions{})
	if cc := c.Cases[0]; len(cc.Mismatch) != 0 || cc.Verdict == NotComparable {
		t.Errorf("same settings: mismatch %q, verdict %q", cc.Mismatch, cc.Verdict)
	}
}

// TestGateExcludesMismatches: a not comparable pair neither fails nor
// passes the gate; a gate left with nothing to judge fails.
func TestGateExcludesMismatches(t *testing.T) {
	t.Parallel()
	same := costRecord(false, tenSamples)
	same.Name = "case/same"
	base := []results.Record{costRecord(false, tenSamples), same}
	other := costRecord(false, shift(tenSamples, 1.5)) // 50% slower, but another group
	other.Group = "P-256"
	cand := []results.Record{other, same}

	c := Compare(base, cand, CompareOptions{})
	if err := c.CheckRegressions(0.05); err != nil {
		t.Errorf("the comparable pair is unchanged and the other left out, yet the gate failed: %v", err)
	}
	var re *RegressionError
	c = Compare(base[:1], cand[:1], CompareOptions{})
	err := c.CheckRegressions(0.05)
	if !errors.As(err, &re) || !re.NothingJudged || len(re.Excluded) != 1 {
		t.Fatalf("only a mismatched pair: gate = %v, want nothing left to judge", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "nothing left to judge") || !strings.Contains(msg, "case/x (group: X25519 vs P-256)") || !strings.Contains(msg, "--allow-mismatch") {
		t.Errorf("message %q", msg)
	}
	// Allowed, the pair is judged: 50% slower fails the gate.
	c = Compare(base[:1], cand[:1], CompareOptions{AllowMismatch: true})
	if err := c.CheckRegressions(0.05); !errors.As(err, &re) || len(re.Cases) != 1 {
		t.Errorf("--allow-mismatch: gate = %v, want the regression", err)
	}
}

// TestRenderMismatch: every format says which pair is not comparable and
// why, and none shows a change for it.
func TestRenderMismatch(t *testing.T) {
	t.Parallel()
	b := costRecord(false, tenSamples)
	cnd := costRecord(false, shift(tenSamples, 1.5))
	cnd.SessionStore = "stateful"
	c := Compare([]results.Record{b}, []results.Record{cnd}, CompareOptions{})
	want := map[report.Format][]string{
		report.Table:    {"WARNING: 1 pair is not comparable", "case/x: session_store: tickets vs stateful", "not comparable"},
		report.Markdown: {"### WARNING: 1 pair is not comparable", "not comparable"},
		report.JSON:     {`"mismatch": [`, `"session_store: tickets vs stateful"`, `"change": null`},
		report.CSV:      {",mismatch,", ",session_store: tickets vs stateful,"},
	}
	for f, wants := range want {
		var buf bytes.Buffer
		if err := RenderComparison(&buf, f, c); err != nil {
			t.Fatal(err)
		}
		for _, w := range wants {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s lacks %q:\n%s", f, w, buf.String())
			}
		}
		if strings.Contains(buf.String(), "+50") {
			t.Errorf("%s shows a change for a not comparable pair:\n%s", f, buf.String())
		}
	}
}

// TestRequestDefaultIsNoMismatch: a record that wrote out the built-in
// server's default exchange and one that left it implied used the same
// one: no mismatch (it was once listed as "ping (the built-in server) vs
// ping"); another exchange is one.
func TestRequestDefaultIsNoMismatch(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name       string
		tput       bool
		base, cand string
		want       []string
	}{
		{"ping implied vs written", false, "", "ping", nil},
		{"ping written vs implied", false, "ping", "", nil},
		{"bulk implied vs written", true, "", "bulk", nil},
		{"ping vs http", false, "", "http", []string{"request: ping vs http"}},
		{"bulk vs http", true, "", "http", []string{"request: bulk vs http"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base, cand := costRecord(tt.tput, tenSamples), costRecord(tt.tput, tenSamples)
			base.Request, cand.Request = tt.base, tt.cand
			c := Compare([]results.Record{base}, []results.Record{cand}, CompareOptions{})
			if got := c.Cases[0].Mismatch; !slices.Equal(got, tt.want) {
				t.Errorf("mismatch %q, want %q", got, tt.want)
			}
		})
	}
}
