package loadgen

import "testing"

func TestFallbackNote(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name             string
		relay, fallbacks map[string]int64
		want             string
	}{
		{"none", map[string]int64{"client:ktls": 2, "origin:ktls": 2}, nil, ""},
		{"mixed", map[string]int64{"client:user": 1, "client:ktls": 2, "origin:ktls": 3},
			map[string]int64{"client:tls12-resumed": 1},
			"the proxy's kernel TLS fell back to user space on the client leg of 1 of 3 connections: a resumed TLS 1.2 session gives the proxy no keys for the kernel"},
		{"no kernel TLS", map[string]int64{"client:user": 2, "origin:user": 2},
			map[string]int64{"client:no-kernel-tls": 2, "origin:no-kernel-tls": 2},
			"the proxy's kernel TLS fell back to user space on the client leg of 2 of 2 connections: the kernel has no TLS ULP (built without CONFIG_TLS, or its module not loaded: modprobe tls); the origin leg of 2 of 2 connections: the kernel has no TLS ULP (built without CONFIG_TLS, or its module not loaded: modprobe tls)"},
		{"unknown reason and no relay count", nil, map[string]int64{"origin:odd": 2, "client:early-tls": 0},
			"the proxy's kernel TLS fell back to user space on the origin leg of 2 of 2 connections: odd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := fallbackNote(tc.relay, tc.fallbacks); got != tc.want {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}
