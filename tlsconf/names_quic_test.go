package tlsconf_test

import (
	"testing"

	"github.com/tlsbench/tlsbench/tlsconf"
)

func TestQUICVersionName(t *testing.T) {
	t.Parallel()
	for v, want := range map[uint32]string{
		tlsconf.QUICVersion1: "v1", tlsconf.QUICVersion2: "v2", 0xff00001d: "0xff00001d",
		0x1a2a3a4a: "0x1a2a3a4a (reserved, to exercise version negotiation)",
	} {
		if got := tlsconf.QUICVersionName(v); got != want {
			t.Errorf("QUICVersionName(%#x) = %q, want %q", v, got, want)
		}
	}
}
