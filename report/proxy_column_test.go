package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// TestThroughputProxyColumn: a throughput table gains the proxy's CPU per
// GB only when a record went through a proxy.
func TestThroughputProxyColumn(t *testing.T) {
	t.Parallel()
	mbps := 500.0
	rec := results.Record{Name: "throughput/proxy-builtin/tls1.3/aes128gcm/16k/download/ktls-off/c1", Kind: results.KindThroughput,
		Iterations: 2, SamplesUS: []float64{2000, 2000}, MBps: &mbps, BufferBytes: 16 << 10,
		Proxy: "builtin", Extra: map[string]float64{"proxy_cpu_s_per_gb": 1.25}}
	var buf bytes.Buffer
	if err := Render(&buf, Table, []results.Record{rec}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "proxy CPU-s/GB") || !strings.Contains(buf.String(), "1.25") {
		t.Fatalf("no proxy column:\n%s", buf.String())
	}
	rec.Proxy = ""
	buf.Reset()
	Render(&buf, Table, []results.Record{rec})
	if strings.Contains(buf.String(), "proxy CPU") {
		t.Fatalf("a proxy column without a proxy:\n%s", buf.String())
	}
}
