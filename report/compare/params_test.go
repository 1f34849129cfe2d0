package compare

import (
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// TestCompareRefusesDifferingParams: two records under one name whose
// params differ measured different things: not comparable, naming the
// param. A param only one side records (an older record) is not compared.
func TestCompareRefusesDifferingParams(t *testing.T) {
	t.Parallel()
	params := map[string]string{"tls_version": "1.3", "cipher": "aes128gcm", "transport": "tcp4"}
	base := withParams(costRecord(false, tenSamples), params)
	tests := []struct {
		name string
		edit func(r *results.Record)
		want []string
	}{
		{"cipher asked", func(r *results.Record) { r.Params["cipher"] = "chacha20poly1305" }, []string{"params.cipher: aes128gcm vs chacha20poly1305"}},
		{"transport family", func(r *results.Record) { r.Params["transport"] = "tcp6" }, []string{"params.transport: tcp4 vs tcp6"}},
		{"new param on one side", func(r *results.Record) { r.Params["record_size"] = "big" }, nil},
		{"no params on one side", func(r *results.Record) { r.Params = nil }, nil},
		{"same", func(r *results.Record) {}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cand := withParams(costRecord(false, shift(tenSamples, 1.5)), params)
			tt.edit(&cand)
			c := Compare([]results.Record{base}, []results.Record{cand}, CompareOptions{})
			cc := c.Cases[0]
			if strings.Join(cc.Mismatch, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("mismatch %q, want %q", cc.Mismatch, tt.want)
			}
			if (len(tt.want) > 0) != (cc.Verdict == NotComparable) {
				t.Errorf("verdict %q with mismatch %q", cc.Verdict, cc.Mismatch)
			}
		})
	}
}

// TestCompareHandshakeCipher: handshake records that both carry their
// negotiated cipher are compared on it; an older record without one is
// not held against a newer one.
func TestCompareHandshakeCipher(t *testing.T) {
	t.Parallel()
	base := costRecord(false, tenSamples)
	for _, tt := range []struct {
		base, cand string
		want       string
	}{
		{"aes128gcm", "chacha20poly1305", "cipher: aes128gcm vs chacha20poly1305"},
		{"", "aes128gcm", ""},
		{"aes128gcm", "aes128gcm", ""},
	} {
		b, c := base, costRecord(false, shift(tenSamples, 1.5))
		b.Cipher, c.Cipher = tt.base, tt.cand
		got := strings.Join(Compare([]results.Record{b}, []results.Record{c}, CompareOptions{}).Cases[0].Mismatch, "|")
		if got != tt.want {
			t.Errorf("%q vs %q: mismatch %q, want %q", tt.base, tt.cand, got, tt.want)
		}
	}
}
