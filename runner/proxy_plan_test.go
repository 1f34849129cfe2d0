package runner_test

import (
	"crypto/tls"
	"errors"
	"slices"
	"testing"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/runner"
	"github.com/tlsbench/tlsbench/tlsconf"
)

func proxyTP(proxy runner.Proxy, readFill []bool) runner.ThroughputPlan {
	return runner.ThroughputPlan{Versions: []uint16{tls.VersionTLS13}, Ciphers: []string{tlsconf.CipherAES128GCM},
		Buffers: []int{16 << 10}, Directions: []string{"download"}, Concurrency: []int{1}, KTLS: []ktls.Mode{ktls.ModeOff},
		Bytes: 1 << 20, Iterations: 1, Proxy: proxy, ReadFill: readFill}
}

// TestProxyAxesNames: the proxy's axes add segments and params only when
// used, so that the names of runs without a proxy stay as they were.
func TestProxyAxesNames(t *testing.T) {
	t.Parallel()
	names := func(cases []runner.Case) []string {
		var out []string
		for _, c := range cases {
			out = append(out, c.Name)
		}
		return out
	}
	plain := proxyTP(runner.Proxy{}, nil)
	if got := names(plain.Cases()); !slices.Equal(got, []string{"throughput/tls1.3/aes128gcm/16k/download/ktls-off/c1"}) {
		t.Fatalf("without a proxy: %v", got)
	}
	if _, ok := plain.Cases()[0].Params["proxy"]; ok {
		t.Fatal("param proxy without a proxy")
	}
	fill := proxyTP(runner.Proxy{URL: runner.ProxyBuiltin}, []bool{false, true})
	want := []string{"throughput/proxy-builtin/tls1.3/aes128gcm/16k/download/fill-off/ktls-off/c1",
		"throughput/proxy-builtin/tls1.3/aes128gcm/16k/download/fill-on/ktls-off/c1"}
	cases := fill.Cases()
	if got := names(cases); !slices.Equal(got, want) {
		t.Fatalf("builtin with read-fill: %v", got)
	}
	if cases[1].Params["proxy"] != "builtin" || cases[1].Params["read_fill"] != "on" {
		t.Fatalf("params %v", cases[1].Params)
	}
	url := proxyTP(runner.Proxy{URL: "http://127.0.0.1:3128", CAFile: "ca.pem"}, nil)
	cases = url.Cases()
	if got := names(cases); !slices.Equal(got, []string{"throughput/proxy-url/tls1.3/aes128gcm/16k/download/http/ktls-off/c1"}) {
		t.Fatalf("URL proxy: %v", got)
	}
	if cases[0].Params["request"] != "http" || cases[0].Params["proxy"] != "http://127.0.0.1:3128" {
		t.Fatalf("URL proxy params %v", cases[0].Params)
	}
	both := url
	both.Directions = []string{"download", "both"}
	cases = both.Cases()
	if cases[0].NotRunnable != "" || cases[1].NotRunnable == "" {
		t.Fatalf("http both must be not runnable, download runnable: %q / %q", cases[0].NotRunnable, cases[1].NotRunnable)
	}

	hs := runner.Plan{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false}, Concurrency: []int{1}, Handshakes: 1, Iterations: 1,
		Proxy: runner.Proxy{URL: runner.ProxyBuiltin}, MintCache: []bool{true, false}}
	if got := names(hs.Cases()); !slices.Equal(got, []string{"handshake/proxy-builtin/tls1.3/full/mintcache-on/c1", "handshake/proxy-builtin/tls1.3/full/mintcache-off/c1"}) {
		t.Fatalf("mint cache: %v", got)
	}
	if err := hs.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestProxyPlanErrors: every setting that does not go with the proxy
// given is refused, naming its field.
func TestProxyPlanErrors(t *testing.T) {
	t.Parallel()
	url := runner.Proxy{URL: "http://127.0.0.1:3128", CAFile: "ca.pem"}
	for _, tc := range []struct {
		name  string
		tp    runner.ThroughputPlan
		field string
	}{
		{"ca with builtin", proxyTP(runner.Proxy{URL: runner.ProxyBuiltin, CAFile: "x"}, nil), "Proxy.CAFile"},
		{"pid with builtin", proxyTP(runner.Proxy{URL: runner.ProxyBuiltin, PID: 1}, nil), "Proxy.PID"},
		{"pid without proxy", proxyTP(runner.Proxy{PID: 1}, nil), "Proxy.PID"},
		{"ca without proxy", proxyTP(runner.Proxy{CAFile: "x"}, nil), "Proxy.CAFile"},
		{"read-fill without proxy", proxyTP(runner.Proxy{}, []bool{true}), "ReadFill"},
		{"read-fill with URL", proxyTP(url, []bool{true}), "ReadFill"},
		{"URL without CA", proxyTP(runner.Proxy{URL: "http://127.0.0.1:3128"}, nil), "Proxy.CAFile"},
		{"ftp URL", proxyTP(runner.Proxy{URL: "ftp://x"}, nil), "Proxy.URL"},
		{"no port", proxyTP(runner.Proxy{URL: "http://x"}, nil), "Proxy.URL"},
		{"bad port", proxyTP(runner.Proxy{URL: "http://x:0"}, nil), "Proxy.URL"},
		{"user", proxyTP(runner.Proxy{URL: "http://u:p@x:1"}, nil), "Proxy.URL"},
		{"path", proxyTP(runner.Proxy{URL: "http://x:1/a"}, nil), "Proxy.URL"},
		{"negative pid", proxyTP(runner.Proxy{URL: url.URL, CAFile: "ca.pem", PID: -1}, nil), "Proxy.PID"},
	} {
		err := tc.tp.Validate()
		var fe *plan.Error
		if !errors.As(err, &fe) || fe.Setting == nil || fe.Setting.Name != plan.OfField(tc.field).Name {
			t.Errorf("%s: %v, want a field error of %s", tc.name, err, tc.field)
		}
	}
	kt := proxyTP(url, nil)
	kt.KTLS = []ktls.Mode{ktls.ModeOff, ktls.ModeAuto}
	var fe *plan.Error
	if err := kt.Validate(); !errors.As(err, &fe) || fe.Setting == nil || fe.Setting.Name != plan.OfField("KTLS").Name {
		t.Errorf("kTLS with a URL proxy: %v", err)
	}
	small := proxyTP(builtinProxy, nil)
	small.Buffers = []int{256}
	if err := small.Validate(); !errors.As(err, &fe) || fe.Setting == nil || fe.Setting.Name != plan.OfField("Buffers").Name {
		t.Errorf("a relay buffer below the proxy's minimum: %v", err)
	}
	httpOn := proxyTP(runner.Proxy{}, nil)
	httpOn.Request, httpOn.KTLS = runner.RequestHTTP, []ktls.Mode{ktls.ModeOn}
	if err := httpOn.Validate(); !errors.As(err, &fe) || fe.Setting == nil || fe.Setting.Name != plan.OfField("KTLS").Name {
		t.Errorf("kTLS on over HTTP: %v", err)
	}
	req := proxyTP(runner.Proxy{}, nil)
	req.Request = "gopher"
	if err := req.Validate(); !errors.As(err, &fe) || fe.Setting == nil || fe.Setting.Name != plan.OfField("Request").Name {
		t.Errorf("bad request: %v", err)
	}
	hs := runner.Plan{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false}, Concurrency: []int{1}, Handshakes: 1, Iterations: 1,
		Proxy: runner.Proxy{URL: runner.ProxyBuiltin}, Mutual: true}
	if err := hs.Validate(); !errors.As(err, &fe) || fe.Setting == nil || fe.Setting.Name != plan.OfField("Mutual").Name {
		t.Errorf("mutual through a proxy: %v", err)
	}
	hs.Mutual, hs.Transports = false, []string{runner.TransportMemory}
	if err := hs.Validate(); !errors.As(err, &fe) || fe.Setting == nil || fe.Setting.Name != plan.OfField("Transports").Name {
		t.Errorf("memory through a proxy: %v", err)
	}
	hs.Transports, hs.Proxy, hs.MintCache = nil, url, []bool{true}
	if err := hs.Validate(); !errors.As(err, &fe) || fe.Setting == nil || fe.Setting.Name != plan.OfField("MintCache").Name {
		t.Errorf("mint cache with a URL proxy: %v", err)
	}
}
