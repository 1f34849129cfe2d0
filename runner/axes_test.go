package runner_test

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/runner"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// TestNamesOfNewAxesStable: a cipher or tcp6 adds its segment; tcp and
// tcp4 keep the names of the days before either existed.
func TestNamesOfNewAxesStable(t *testing.T) {
	t.Parallel()
	base := func() runner.Plan {
		return runner.Plan{Versions: []uint16{tls.VersionTLS12}, Resume: []bool{false}, Concurrency: []int{8}}
	}
	tests := []struct {
		mutate func(*runner.Plan)
		want   string
	}{
		{func(p *runner.Plan) {}, "handshake/tls1.2/full/c8"},
		{func(p *runner.Plan) { p.Transports = []string{runner.TransportTCP} }, "handshake/tls1.2/full/c8"},
		{func(p *runner.Plan) { p.Transports = []string{runner.TransportTCP4} }, "handshake/tls1.2/full/c8"},
		{func(p *runner.Plan) { p.Transports = []string{runner.TransportTCP6} }, "handshake/tls1.2/full/tcp6/c8"},
		{func(p *runner.Plan) { p.Ciphers = []string{tlsconf.CipherChaCha20Poly1305} }, "handshake/tls1.2/full/chacha20poly1305/c8"},
		{func(p *runner.Plan) {
			p.Ciphers, p.Groups, p.Transports = []string{tlsconf.CipherAES128GCM}, []tls.CurveID{tls.X25519}, []string{runner.TransportMemory}
		}, "handshake/tls1.2/full/x25519/aes128gcm/memory/c8"},
	}
	for _, tt := range tests {
		p := base()
		tt.mutate(&p)
		if got := p.Cases()[0].Name; got != tt.want {
			t.Errorf("name %s, want %s", got, tt.want)
		}
	}
}

// TestCipherCasesRecordTheirSuite runs the cipher axis against the child
// server: every case records the cipher it negotiated (TLS 1.2 pinned,
// TLS 1.3 steered), resumed cases too, and TLS 1.3 AES-256-GCM, which two
// Go endpoints cannot negotiate, is reported as not runnable instead of
// silently measuring another cipher.
func TestCipherCasesRecordTheirSuite(t *testing.T) {
	t.Parallel()
	p := smallPlan()
	p.Concurrency = []int{4}
	p.Handshakes = 16
	p.Ciphers = []string{tlsconf.CipherChaCha20Poly1305, tlsconf.CipherAES256GCM}
	recs := run(t, p)
	seen := 0
	for _, rec := range recs {
		want := rec.Params["cipher"]
		if !strings.Contains(rec.Name, "/"+want+"/") {
			t.Errorf("%s: name lacks its cipher %s (params %v)", rec.Name, want, rec.Params)
		}
		if rec.TLSVersion == "1.3" && want == tlsconf.CipherAES256GCM {
			if rec.Handshakes != 0 || len(rec.Notes) == 0 || !strings.Contains(rec.Notes[0], "not runnable") {
				t.Errorf("%s: %d handshakes, notes %v: want not runnable and nothing measured", rec.Name, rec.Handshakes, rec.Notes)
			}
			continue
		}
		seen++
		if rec.Cipher != want || rec.Handshakes == 0 {
			t.Errorf("%s: negotiated %q in %d handshakes, want %s", rec.Name, rec.Cipher, rec.Handshakes, want)
		}
		if rec.Resume && rec.ResumptionRate != 1 {
			t.Errorf("%s: resumption rate %v", rec.Name, rec.ResumptionRate)
		}
	}
	if seen != 6 {
		t.Errorf("%d measured cases, want 6 (TLS 1.2 both ciphers, TLS 1.3 ChaCha20, full and resumed)", seen)
	}
}

// TestCipherOnlyUnrunnable: a plan whose every case is not runnable is
// refused before any work, naming the cipher field.
func TestCipherOnlyUnrunnable(t *testing.T) {
	t.Parallel()
	p := smallPlan()
	p.Versions = []uint16{tls.VersionTLS13}
	p.Ciphers = []string{tlsconf.CipherAES256GCM}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "no case can run") {
		t.Errorf("error %v, want no case can run", err)
	}
	p.Ciphers = []string{"rc4"}
	var fe *plan.Error
	if err := p.Validate(); !errors.As(err, &fe) || fe.Setting == nil || fe.Setting.Name != plan.OfField("Ciphers").Name {
		t.Errorf("error %v, want a field error naming Ciphers", err)
	}
}

// needIPv6 skips a test where the loopback has no ::1, the one condition
// it accepts; under CI it fails instead, so that CI never passes it
// unrun.
func needIPv6(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err == nil {
		ln.Close()
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("IPv6 loopback [::1] is unavailable on this machine (%v); CI must have it", err)
	}
	t.Skipf("IPv6 loopback [::1] is unavailable: %v", err)
}

// TestTCP6AgainstChildServer: the transport axis over real loopback
// sockets of both families. The tcp6 server listens on [::1] (its notice
// says where) and records say tcp6; tcp4 keeps recording "tcp".
func TestTCP6AgainstChildServer(t *testing.T) {
	t.Parallel()
	needIPv6(t)
	p := smallPlan()
	p.Versions = []uint16{tls.VersionTLS13}
	p.Concurrency = []int{4}
	p.Handshakes = 16
	p.Transports = []string{runner.TransportTCP4, runner.TransportTCP6}
	var mu sync.Mutex
	var notices []string
	p.Notice = func(s string) { mu.Lock(); notices = append(notices, s); mu.Unlock() }
	got := map[string]string{}
	for _, rec := range run(t, p) {
		got[rec.Name] = rec.Transport + " " + rec.Params["transport"]
		if rec.Resume && rec.ResumptionRate != 1 {
			t.Errorf("%s: resumption rate %v", rec.Name, rec.ResumptionRate)
		}
	}
	want := map[string]string{
		"handshake/tls1.3/full/c4": "tcp tcp4", "handshake/tls1.3/resume/c4": "tcp tcp4",
		"handshake/tls1.3/full/tcp6/c4": "tcp6 tcp6", "handshake/tls1.3/resume/tcp6/c4": "tcp6 tcp6",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: transport and param %q, want %q (all: %v)", name, got[name], w, got)
		}
	}
	joined := strings.Join(notices, "\n")
	if !strings.Contains(joined, " on [::1]:") || !strings.Contains(joined, " on 127.0.0.1:") {
		t.Errorf("servers not on both loopbacks:\n%s", joined)
	}
}

// TestIPv6LiteralTarget measures a server at an IPv6 literal: the
// address is accepted, no SNI is sent (an IP literal is not a host name),
// and the certificate is verified against its IP SAN ::1.
func TestIPv6LiteralTarget(t *testing.T) {
	needIPv6(t)
	t.Parallel()
	cfg, ca := testpki.Server(t)
	var mu sync.Mutex
	snis := map[string]int{}
	base := cfg.Clone()
	cfg.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		mu.Lock()
		snis[hello.ServerName]++
		mu.Unlock()
		return base, nil
	}
	ln, err := tls.Listen("tcp6", "[::1]:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go echo(ln)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := pki.WriteCertsPEM(caFile, ca.Root()); err != nil {
		t.Fatal(err)
	}
	p := runner.Plan{Versions: []uint16{tls.VersionTLS12, tls.VersionTLS13}, Resume: []bool{false, true}, Concurrency: []int{2},
		Handshakes: 8, Iterations: 2, Warmup: 1, MinResumption: 0.99,
		Target: runner.Target{Addr: ln.Addr().String(), CAFile: caFile}}
	if !strings.HasPrefix(p.Target.Addr, "[::1]:") {
		t.Fatalf("listener on %s", p.Target.Addr)
	}
	for _, rec := range run(t, p) {
		if rec.Handshakes == 0 || rec.Errors != 0 || rec.Target != p.Target.Addr {
			t.Errorf("%s: %d handshakes, %d errors (%v), target %q", rec.Name, rec.Handshakes, rec.Errors, rec.ErrorsByKind, rec.Target)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(snis) != 1 || snis[""] == 0 {
		t.Errorf("server names sent: %v, want none (an IP literal is not sent as SNI)", snis)
	}
}

// echo serves the 1-byte ping of each connection until it closes.
func echo(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			io.Copy(c, c)
		}()
	}
}

// TestRecordsCarryParams: a measured record carries its case's params,
// every axis of its mode.
func TestRecordsCarryParams(t *testing.T) {
	t.Parallel()
	p := smallPlan()
	p.Versions = []uint16{tls.VersionTLS13}
	p.Resume = []bool{true}
	p.Concurrency = []int{2}
	p.Handshakes = 8
	p.Transports = []string{runner.TransportMemory}
	recs := run(t, p)
	want := map[string]string{"tls_version": "1.3", "resume": "on", "mutual": "off", "concurrency": "2", "key_type": "ecdsa-p256",
		"key_cache": "on", "group": "default", "cipher": "default", "transport": "memory"}
	got := recs[0].Params
	if len(got) != len(want) {
		t.Errorf("params %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("params[%s] = %q, want %q", k, got[k], v)
		}
	}
}
