package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// TestHandshakeProxyColumns: the handshake table gains the proxy's CPU
// per handshake (and its mints/hits when the proxy counted them), after
// the server's CPU, only when a record went through a proxy; a figure
// the proxy did not give is unknown, not zero.
func TestHandshakeProxyColumns(t *testing.T) {
	t.Parallel()
	f64 := func(v float64) *float64 { return &v }
	i64 := func(v int64) *int64 { return &v }
	builtin := hs("handshake/proxy-builtin/tls1.3/full/c1", 900, 1000)
	builtin.Proxy, builtin.ProxyCPUUS, builtin.ProxyMints, builtin.ProxyMintHits = "builtin", f64(41.5), i64(3), i64(253)
	squid := hs("handshake/proxy-url/tls1.3/full/c1", 1500, 1600)
	squid.Proxy = "http://127.0.0.1:3128" // no --proxy-pid, no mint counts
	direct := hs("handshake/tls1.3/full/c1", 300, 310)
	notRunRec := results.Record{Name: "handshake/proxy-builtin/tls1.3/resume/c1", Kind: results.KindHandshake, Proxy: "builtin"}

	for _, tt := range []struct {
		name  string
		recs  []*results.Record
		cols  []string // the proxy columns, in order, after server CPU
		cells [][]string
	}{
		{"builtin and url", []*results.Record{&builtin, &squid, &direct}, []string{"proxy CPU", "mints/hits"},
			[][]string{{"41.5", "3/253"}, {Null, Null}, {Null, Null}}},
		{"url only", []*results.Record{&squid}, []string{"proxy CPU"}, [][]string{{Null}}},
		{"not run", []*results.Record{&builtin, &notRunRec}, []string{"proxy CPU", "mints/hits"},
			[][]string{{"41.5", "3/253"}, {Null, Null}}},
		{"no proxy", []*results.Record{&direct}, nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tab, _ := handshakeTable(tt.recs, nil)
			at := slices.IndexFunc(tab.Cols, func(c Column) bool { return c.Title == "server CPU" }) + 1
			var got []string
			for _, c := range tab.Cols[at:] {
				if c.Title == "proxy CPU" || c.Title == "mints/hits" {
					got = append(got, c.Title)
				}
			}
			if !slices.Equal(got, tt.cols) || (len(got) > 0 && tab.Cols[at].Title != "proxy CPU") {
				t.Fatalf("proxy columns %v right after server CPU, want %v", got, tt.cols)
			}
			if len(got) > 0 && tab.Cols[at].Unit != "µs/hs" {
				t.Errorf("proxy CPU unit %q, want µs/hs", tab.Cols[at].Unit)
			}
			for i, want := range tt.cells {
				if len(tab.Rows[i]) != len(tab.Cols) {
					t.Fatalf("row %d has %d cells for %d columns", i, len(tab.Rows[i]), len(tab.Cols))
				}
				if cells := tab.Rows[i][at : at+len(want)]; !slices.Equal(cells, want) {
					t.Errorf("row %d (%s): proxy cells %q, want %q", i, tt.recs[i].Name, cells, want)
				}
			}
		})
	}
}

// TestHandshakeProxyColumnsRendered: table and markdown both show them.
func TestHandshakeProxyColumnsRendered(t *testing.T) {
	t.Parallel()
	f64 := func(v float64) *float64 { return &v }
	i64 := func(v int64) *int64 { return &v }
	rec := hs("handshake/proxy-builtin/tls1.3/full/c1", 900, 1000)
	rec.Proxy, rec.ProxyCPUUS, rec.ProxyMints, rec.ProxyMintHits = "builtin", f64(41.5), i64(3), i64(253)
	for _, f := range []Format{Table, Markdown} {
		var buf bytes.Buffer
		if err := Render(&buf, f, []results.Record{rec}); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"proxy CPU", "mints/hits", "41.5", "3/253"} {
			if !strings.Contains(buf.String(), want) {
				t.Errorf("%v: no %q in:\n%s", f, want, buf.String())
			}
		}
	}
}

// TestResumedUnitThroughProxy: the resumed column's second figure is the
// proxy's count through a proxy, and its heading says so.
func TestResumedUnitThroughProxy(t *testing.T) {
	t.Parallel()
	i64 := func(v int64) *int64 { return &v }
	proxied := hs("handshake/proxy-builtin/tls1.3/resume/c1", 900)
	proxied.Proxy, proxied.ServerResumed, proxied.ProxyResumed = "builtin", i64(0), i64(128)
	direct := hs("handshake/tls1.3/resume/c1", 300)
	direct.ServerResumed = i64(128)
	urlProxy := hs("handshake/proxy-url/tls1.3/resume/c1", 900)
	urlProxy.Proxy = "http://127.0.0.1:3128" // the proxy's count unknown
	for _, tt := range []struct {
		name string
		recs []*results.Record
		want string
	}{
		{"proxy", []*results.Record{&proxied}, "client/proxy"},
		{"server", []*results.Record{&direct}, "client/server"},
		{"both", []*results.Record{&proxied, &direct}, "client/server or proxy"},
		{"url proxy only", []*results.Record{&urlProxy}, "client"},
	} {
		tab, _ := handshakeTable(tt.recs, nil)
		i := slices.IndexFunc(tab.Cols, func(c Column) bool { return c.Title == "resumed" })
		if tab.Cols[i].Unit != tt.want {
			t.Errorf("%s: resumed unit %q, want %q", tt.name, tab.Cols[i].Unit, tt.want)
		}
	}
}
