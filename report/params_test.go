package report

import (
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

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
	if tbl == nil || len(tbl.Rows) != 2 {
		t.Fatalf("pairs %v, want 2", tbl)
	}
	got := map[string]string{}
	for _, row := range tbl.Rows {
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
	if tbl == nil || len(tbl.Rows) != 1 || tbl.Rows[0][4] != "3.00x" {
		t.Fatalf("table %v, want one pair at 3.00x", tbl)
	}
}
