package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// TestResumptionThroughProxy: through a proxy the client's resumed count
// is checked against the proxy's (the same leg), never against the
// server's, which counts the proxy's own connections to it: a server that
// resumed every proxy connection while the client resumed none is no
// disagreement, a proxy that saw fewer resumptions than the client is.
func TestResumptionThroughProxy(t *testing.T) {
	t.Parallel()
	i64 := func(v int64) *int64 { return &v }
	full := hs("handshake/proxy-builtin/tls1.3/full/c8", 100, 100)
	full.Handshakes, full.Resumed, full.ResumptionRate = 64, 0, 0
	full.Proxy, full.ServerResumed, full.ProxyResumed = "builtin", i64(64), i64(0)
	short := hs("handshake/proxy-builtin/tls1.3/resume/c8", 50, 50)
	short.Resume, short.Handshakes, short.Resumed, short.ResumptionRate = true, 64, 64, 1
	short.Proxy, short.ServerResumed, short.ProxyResumed = "builtin", i64(64), i64(60)
	direct := hs("handshake/tls1.3/resume/c8", 50, 50)
	direct.Resume, direct.Handshakes, direct.Resumed, direct.ResumptionRate = true, 64, 64, 1
	direct.ServerResumed = i64(63)

	var buf bytes.Buffer
	if err := Render(&buf, Table, []results.Record{full, short, direct}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "full/c8: of") {
		t.Errorf("the proxy–server leg's resumptions reported as a disagreement:\n%s", out)
	}
	for _, want := range []string{
		"handshake/proxy-builtin/tls1.3/resume/c8: of 64 handshakes the client saw 64 resumed, the proxy 60",
		"handshake/tls1.3/resume/c8: of 64 handshakes the client saw 64 resumed, the server 63",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
