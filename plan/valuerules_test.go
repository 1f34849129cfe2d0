package plan_test

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/plan"
)

// TestValueRules: the rules of settings' values that the runner calls
// refuse in the command line's words when given the command line's
// namer, and pass values that can run.
func TestValueRules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty, data, prog := filepath.Join(dir, "empty"), filepath.Join(dir, "data"), filepath.Join(dir, "prog")
	for name, mode := range map[string]os.FileMode{empty: 0o644, data: 0o644, prog: 0o644} {
		if err := os.WriteFile(name, nil, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(data, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	flag := func(s *plan.Setting) string { return "--" + s.Name }
	counts := plan.Counts{Handshakes: 100, Iterations: 3, MaxConcurrency: 10}
	tooFew := counts
	tooFew.MaxConcurrency = 200
	timed := tooFew
	timed.Timed = true
	identities := counts
	identities.ClientIdentities = 4
	throughput := plan.Matrix{Versions: []uint16{tls.VersionTLS13}, Ciphers: []string{"aes128gcm"}, Buffers: []int{16 << 10},
		KTLS: []ktls.Mode{ktls.ModeOff}, Directions: []string{plan.DirectionDownload}, Concurrency: []int{1}}
	bigBuffer := throughput
	bigBuffer.Buffers = []int{plan.MaxBuffer + 1}
	badWire := throughput
	badWire.Request = "ftp"
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"counts", counts.Check(), ""},
		{"a wave larger than an iteration", tooFew.Check(), "--concurrency 200: more than the 100 handshakes of an iteration (--handshakes), so no wave would reach it: raise --handshakes to at least 200, or lower --concurrency"},
		{"a wave of a timed iteration", timed.Check(), ""},
		{"client identities without mutual", identities.Check(), "--client-identities 4: client certificates are only sent with --mutual"},
		{"a concurrency out of range", plan.CheckConcurrency([]int{1, 5000}, false), "--concurrency 5000: must be between 1 and 4096"},
		{"rates in place of concurrency", plan.CheckConcurrency(nil, true), ""},
		{"an unknown transport", plan.CheckTransports([]string{"tcp", "sctp"}), `--transport "sctp": must be tcp4, tcp6, memory or quic`},
		{"a hybrid group with TLS 1.2", plan.CheckGroups([]tls.CurveID{tls.X25519MLKEM768}, []uint16{tls.VersionTLS12}), "--groups x25519mlkem768: a TLS 1.3-only group cannot be used with --tls 1.2; run them separately"},
		{"a hybrid group with TLS 1.3", plan.CheckGroups([]tls.CurveID{tls.X25519MLKEM768}, []uint16{tls.VersionTLS13}), ""},
		{"resumption neither way", plan.CheckResumption(nil, nil), "--resume: give off, on or both"},
		{"an address without a port", plan.CheckAddress(plan.Settings.Target, "example.com"), `--target "example.com": want host:port, e.g. 127.0.0.1:443 or [::1]:443`},
		{"an address", plan.CheckAddress(plan.Settings.Target, "example.com:443"), ""},
		{"insecure with a CA", plan.External{Addr: "example.com:443", Insecure: true, CAFile: "ca.pem"}.Check(), "--insecure and --ca contradict each other: give one"},
		{"a target over memory", plan.External{Addr: "example.com:443", Transports: []string{"memory"}}.Check(), "--transport memory needs the built-in server: drop --target or use --transport tcp"},
		{"a target", plan.External{Addr: "example.com:443", CertFile: "c.pem", KeyFile: "k.pem", Mutual: true}.Check(), ""},
		{"side b's settings alone", plan.Interleaved{Settings: true}.Check(), "--versus-set: change side b's built-in server: give --versus-self or --versus-server too"},
		{"side b's address as given", plan.Interleaved{Addr: "127.0.0.1:0", SideA: "127.0.0.1:443"}.Check(), "--versus 127.0.0.1:0: the port must be a number from 1 to 65535"},
		{"side b on side a's port", plan.Interleaved{Self: true, Listen: "127.0.0.1:8443"}.Check(), "--listen 127.0.0.1:8443: every side of an interleaved run starts its own built-in server, and they cannot share one port: use port 0 (a free port each), e.g. 127.0.0.1:0"},
		{"side b's program not executable", plan.Interleaved{Executable: prog}.Check(), "--versus-server " + prog + ": is not executable (chmod +x it)"},
		{"side b itself", plan.Interleaved{Self: true}.Check(), ""},
		{"a shard past the count", plan.CheckShard(4, 4), "--shard 4/4: the shard's index must be from 0 to 3"},
		{"no shard", plan.CheckShard(0, 0), ""},
		{"a wave smaller than the shards", plan.Shares{Count: 4, Concurrency: []int{2}}.Check(), "--concurrency 2: a wave of 2 split over 4 shards leaves some shard none: raise --concurrency to at least 4, or use fewer shards"},
		{"a window smaller than the shards", plan.Shares{Count: 4, Rates: []float64{2}, MaxInflight: 100, Window: time.Second}.Check(), "--rate 2: a window of 1s holds 2 connections at this rate, fewer than the 4 shards: raise --rate, lengthen --duration, or lower --iterations or the shards"},
		{"shares", plan.Shares{Count: 4, Concurrency: []int{4}, Rates: []float64{100}, MaxInflight: 100, Window: time.Second}.Check(), ""},
		{"a proxy's CA without a proxy", plan.Proxying{CAFile: "ca.pem"}.Check(), "--proxy-ca applies to a case through a proxy: add --proxy http://HOST:PORT"},
		{"a proxy URL without a port", plan.Proxying{URL: "http://proxy", CAFile: "ca.pem"}.Check(), `--proxy "http://proxy": give the port (want builtin or http://HOST:PORT, e.g. http://127.0.0.1:3128)`},
		{"mutual through a proxy", plan.Proxying{URL: plan.ProxyBuiltin, Mutual: true}.Check(), "--mutual: a proxy that intercepts TLS ends the client's TLS: client certificates never reach the server; drop --mutual or --proxy"},
		{"a proxy", plan.Proxying{URL: "http://127.0.0.1:3128", CAFile: "ca.pem", Transports: []string{"tcp"}}.Check(), ""},
		{"an empty source", plan.CheckSource(empty, nil), "--source file:" + empty + ": not a non-empty regular file"},
		{"a source uploaded", plan.CheckSource(data, []string{plan.DirectionUpload}), "--source file:" + data + " is sent by the server: use --direction download (not upload)"},
		{"a source", plan.CheckSource(data, []string{plan.DirectionDownload}), ""},
		{"throughput axes", throughput.CheckThroughput(), ""},
		{"a buffer too large", bigBuffer.CheckThroughput(), "--buffer 1048577: must be between 1 byte and 1m"},
		{"an unknown wire", badWire.CheckThroughput(), `--request "ftp": want bulk or http`},
		{"no amount", plan.CheckThroughputAmount(0, 0, 1, 0), "--bytes or --duration: give how much each iteration moves (e.g. --bytes 64MiB or --duration 2s)"},
		{"no iteration", plan.CheckThroughputAmount(1<<20, 0, 0, 0), "--iterations 0: must be at least 1"},
	} {
		got := ""
		if tc.err != nil {
			got = tc.err.(*plan.Error).Text(flag)
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
