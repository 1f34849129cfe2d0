package runner_test

import (
	"context"
	"crypto/tls"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// TestVMProxyThroughput runs throughput cases through the built-in proxy
// (a child process, like the server) with kernel TLS on its two legs,
// client and origin in user space, and logs KTLS-PROXY lines that the VM
// script prints. With kTLS on or auto, every case must relay by splice on
// both legs (proxy_relay), keep the payload out of the proxy's user space
// (proxy_user_space_bytes 0 over the kept iterations), and create exactly
// the proxy's kernel TLS contexts in /proc/net/tls_stat: a TX and an RX
// per leg, so +2 TX and +2 RX per connection (the proxy asked the kernel
// what it takes when it started, before the cases); no decrypt error. With kTLS off the
// proxy relays in user space and tls_stat does not move. Every byte is
// verified end to end by the runner. TCG emulation makes the figures
// functional evidence only.
// Not parallel: it counts the kernel's TLS contexts, which any other
// test's kTLS would move.
func TestVMProxyThroughput(t *testing.T) {
	if os.Getenv(vmEnv) != "1" {
		t.Skipf("VM-only test: needs a kernel with CONFIG_TLS; run scripts/ktls-vm-test.sh (sets %s=1)", vmEnv)
	}
	if err := ktls.Supported(); err != nil {
		t.Fatalf("%s=1 but kTLS is unavailable: %v", vmEnv, err)
	}
	kib := 1024
	if v, err := strconv.Atoi(os.Getenv("TLSBENCH_VM_PROXY_KB")); err == nil && v > 0 {
		kib = v
	}
	base := runner.ThroughputPlan{
		Concurrency: []int{1},
		Bytes:       int64(kib) << 10,
		Iterations:  2,
		Warmup:      1,
		Proxy:       builtinProxy,
		Directions:  []string{loadgen.DirectionDownload, loadgen.DirectionUpload},
		Buffers:     []int{16 << 10, 64 << 10},
		ChildEnv:    []string{testchild.Env()},
	}
	plans := []struct {
		name   string
		mutate func(*runner.ThroughputPlan)
	}{
		{"tls13", func(p *runner.ThroughputPlan) {
			p.Versions, p.Ciphers = []uint16{tls.VersionTLS13}, []string{ktls.CipherAES128GCM, ktls.CipherChaCha20Poly1305}
			p.KTLS = []ktls.Mode{ktls.ModeOn}
		}},
		{"tls12", func(p *runner.ThroughputPlan) {
			// Two connections: the contexts are counted per connection.
			p.Versions, p.Ciphers = []uint16{tls.VersionTLS12}, []string{ktls.CipherAES256GCM}
			p.KTLS, p.Concurrency = []ktls.Mode{ktls.ModeOn}, []int{2}
		}},
		{"auto-off", func(p *runner.ThroughputPlan) {
			p.Versions, p.Ciphers = []uint16{tls.VersionTLS13}, []string{ktls.CipherAES128GCM}
			p.Directions, p.Buffers = []string{loadgen.DirectionDownload}, []int{16 << 10}
			p.KTLS = []ktls.Mode{ktls.ModeAuto, ktls.ModeOff}
		}},
	}
	var recs []results.Record
	for _, pl := range plans {
		p := base
		pl.mutate(&p)
		err := p.Run(context.Background(), func(r *results.Record) error {
			recs = append(recs, *r)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", pl.name, err)
		}
	}
	if len(recs) != 14 {
		t.Errorf("%d records, want 14", len(recs))
	}
	t.Logf("KTLS-PROXY %-62s %8s %9s %-28s %10s %s", "case", "MB/s", "prx s/GB", "proxy_relay", "user bytes", "tls_stat contexts; decrypt errors")
	for _, rec := range recs {
		t.Run(rec.Name, func(t *testing.T) { checkVMProxyRecord(t, rec) })
		tx := rec.Extra["tls_tx_sw"] + rec.Extra["tls_tx_device"]
		rx := rec.Extra["tls_rx_sw"] + rec.Extra["tls_rx_device"]
		t.Logf("KTLS-PROXY %-62s %8.2f %9.1f %-28s %10.0f tx+%v rx+%v err+%v", rec.Name, deref(rec.MBps), rec.Extra["proxy_cpu_s_per_gb"],
			rec.ProxyRelay, rec.Extra["proxy_user_space_bytes"], tx, rx, rec.Extra["tls_decrypt_error"])
	}
}

// checkVMProxyRecord checks one record of TestVMProxyThroughput.
func checkVMProxyRecord(t *testing.T, rec results.Record) {
	t.Helper()
	if rec.MBps == nil || *rec.MBps <= 0 || rec.Iterations != 2 || rec.Proxy != runner.ProxyBuiltin {
		t.Fatalf("no figures through the proxy: mbps %v iterations %d proxy %q notes %q", rec.MBps, rec.Iterations, rec.Proxy, rec.Notes)
	}
	spliced := rec.Params["ktls"] != "off"
	// The client and the origin run user-space TLS: kTLS is the proxy's.
	if deref(rec.KTLSTX) || deref(rec.KTLSRX) {
		t.Errorf("ktls_tx %v ktls_rx %v: the client and origin must stay in user space", deref(rec.KTLSTX), deref(rec.KTLSRX))
	}
	for _, k := range []string{"client_ktls_tx", "client_ktls_rx", "server_ktls_tx", "server_ktls_rx"} {
		if rec.Extra[k] != 0 {
			t.Errorf("%s %v, want 0", k, rec.Extra[k])
		}
	}
	user, ok := rec.Extra["proxy_user_space_bytes"]
	if !ok {
		t.Fatalf("no proxy_user_space_bytes: the proxy's counters are missing (notes %q)", rec.Notes)
	}
	conns := float64(rec.Concurrency)
	tx := rec.Extra["tls_tx_sw"] + rec.Extra["tls_tx_device"]
	rx := rec.Extra["tls_rx_sw"] + rec.Extra["tls_rx_device"]
	if spliced {
		if rec.ProxyRelay != "client:splice,origin:splice" {
			t.Errorf("proxy_relay %q, want client:splice,origin:splice (notes %q)", rec.ProxyRelay, rec.Notes)
		}
		// The proxy's legs switch to the kernel right after their
		// handshakes, before any payload: nothing was left in
		// crypto/tls to drain, and splice moves the rest.
		if user != 0 {
			t.Errorf("proxy_user_space_bytes %v of %v: payload crossed the proxy's user space", user, rec.Extra["bytes"])
		}
		// The proxy asks the kernel what it takes when it starts,
		// before the case: only the legs' own contexts are counted.
		if tx != 2*conns || rx != 2*conns {
			t.Errorf("tls_stat: TX +%v RX +%v, want +%v each (two legs x %v connections)", tx, rx, 2*conns, conns)
		}
	} else {
		if rec.ProxyRelay != "client:user,origin:user" {
			t.Errorf("proxy_relay %q, want client:user,origin:user", rec.ProxyRelay)
		}
		// All the payload, plus the rounds' own messages.
		if user < rec.Extra["bytes"] {
			t.Errorf("proxy_user_space_bytes %v, want at least the %v payload bytes", user, rec.Extra["bytes"])
		}
		if tx != 0 || rx != 0 {
			t.Errorf("tls_stat: TX +%v RX +%v with the proxy's kTLS off", tx, rx)
		}
	}
	if rec.Extra["tls_decrypt_error"] != 0 {
		t.Errorf("/proc/net/tls_stat: TlsDecryptError +%v", rec.Extra["tls_decrypt_error"])
	}
	for _, n := range rec.Notes {
		if strings.Contains(n, "proxy failures") {
			t.Errorf("note %q", n)
		}
	}
}
