package loadgen

import (
	"testing"

	"github.com/tlsbench/tlsbench/tlsconf"
)

// TestQUICVersionNames: a case's QUIC version is one name, or each
// version with its count, sorted, when they differed.
func TestQUICVersionNames(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		counts map[string]int64
		want   string
	}{
		{map[string]int64{tlsconf.QUICVersionName(tlsconf.QUICVersion1): 128}, "v1"},
		{map[string]int64{tlsconf.QUICVersionName(tlsconf.QUICVersion2): 10, tlsconf.QUICVersionName(tlsconf.QUICVersion1): 118}, "v1:118,v2:10"},
		{map[string]int64{tlsconf.QUICVersionName(0xff00001d): 1}, "0xff00001d"},
		{map[string]int64{}, ""},
	} {
		if got := versionsOf(tt.counts); got != tt.want {
			t.Errorf("versionsOf(%v) = %q, want %q", tt.counts, got, tt.want)
		}
	}
}
