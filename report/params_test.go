package report

import (
	"maps"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// withParams is r with params set, resume among them.
func withParams(r results.Record, params map[string]string) results.Record {
	r.Params = maps.Clone(params)
	r.Params["resume"] = map[bool]string{false: "off", true: "on"}[r.Resume]
	return r
}

// TestRatioTablePairsByParams: full and resumed cases pair by all their
// params but resume. Two cipher cases agree in every typed field the old
// key knew (and in the negotiated group), so only params keep the cipher
// of a full case from pairing with another cipher's resumed case; a case
// whose partner differs in any param is left unpaired.
func TestRatioTablePairsByParams(t *testing.T) {
	t.Parallel()
	mk := func(name string, resume bool, cipher string, mean float64) results.Record {
		r := hs(name, mean, mean)
		r.Resume, r.Group = resume, "x25519"
		return withParams(r, map[string]string{"tls_version": "1.2", "cipher": cipher, "concurrency": "8"})
	}
	// Resumed cases listed in the other order, so that pairing by
	// position or by group alone would cross the ciphers.
	recs := []results.Record{
		mk("full/aes", false, "aes128gcm", 400), mk("full/chacha", false, "chacha20poly1305", 380),
		mk("resume/chacha", true, "chacha20poly1305", 150), mk("resume/aes", true, "aes128gcm", 100),
		mk("full/unpaired", false, "aes256gcm", 500),
	}
	var ptrs []*results.Record
	for i := range recs {
		ptrs = append(ptrs, &recs[i])
	}
	tbl, _ := ratioTable(ptrs)
	if tbl == nil || len(tbl.rows) != 2 {
		t.Fatalf("pairs %v, want 2", tbl)
	}
	got := map[string]string{}
	for _, row := range tbl.rows {
		got[row[0]] = row[1] + " " + row[4]
	}
	if got["full/aes"] != "resume/aes 4.00x" || got["full/chacha"] != "resume/chacha 2.53x" {
		t.Errorf("pairs %v, want each cipher with its own", got)
	}
}

// TestRatioTableWithoutParams: records written before params pair by
// their typed fields, as before.
func TestRatioTableWithoutParams(t *testing.T) {
	t.Parallel()
	full, res := hs("full", 300, 300), hs("resume", 100, 100)
	res.Resume = true
	tbl, _ := ratioTable([]*results.Record{&full, &res})
	if tbl == nil || len(tbl.rows) != 1 || tbl.rows[0][4] != "3.00x" {
		t.Fatalf("table %v, want one pair at 3.00x", tbl)
	}
}

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
