package runner_test

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// vmEnv makes the TestVM* tests mandatory: scripts/ktls-vm-test.sh sets it
// inside a VM whose kernel has kTLS (as internal/ktls's VM tests).
const vmEnv = "TLSBENCH_KTLS_VM"

// TestVMThroughput runs a small throughput matrix through ThroughputPlan.Run
// with the built-in server in a child process, both ends in kTLS or both
// in user space, and logs KTLS-RUN lines that the VM script prints: the
// same figures tlsbench run --mode throughput reports, and the kTLS/user
// ratio per buffer size. It asserts that kTLS really was in effect
// (per end, and from /proc/net/tls_stat), that sendfile served the file,
// and that every byte arrived intact (the runner checks each round).
// TCG emulation distorts the absolute figures.
// Not parallel: it boots VMs and measures their throughput and CPU, which other tests would disturb.
func TestVMThroughput(t *testing.T) {
	if os.Getenv(vmEnv) != "1" {
		t.Skipf("VM-only test: needs a kernel with CONFIG_TLS; run scripts/ktls-vm-test.sh (sets %s=1)", vmEnv)
	}
	if err := ktls.Supported(); err != nil {
		t.Fatalf("%s=1 but kTLS is unavailable: %v", vmEnv, err)
	}
	kib := 1024
	if v, err := strconv.Atoi(os.Getenv("TLSBENCH_VM_THROUGHPUT_KB")); err == nil && v > 0 {
		kib = v
	}
	file := filepath.Join(t.TempDir(), "payload")
	payload := make([]byte, 700<<10+3)
	rand.Read(payload)
	if err := os.WriteFile(file, payload, 0o600); err != nil {
		t.Fatal(err)
	}
	base := runner.ThroughputPlan{
		Concurrency: []int{1},
		Bytes:       int64(kib) << 10,
		Iterations:  3,
		Warmup:      1,
		ChildEnv:    []string{testchild.Env()},
	}
	plans := []struct {
		name   string
		mutate func(*runner.ThroughputPlan)
	}{
		{"buffers", func(p *runner.ThroughputPlan) {
			p.Versions, p.Ciphers, p.Directions = []uint16{tls.VersionTLS13}, []string{ktls.CipherAES128GCM}, []string{loadgen.DirectionDownload}
			p.Buffers, p.KTLS = []int{4 << 10, 16 << 10, 64 << 10}, []ktls.Mode{ktls.ModeOff, ktls.ModeOn}
		}},
		{"directions", func(p *runner.ThroughputPlan) {
			p.Versions, p.Ciphers = []uint16{tls.VersionTLS12}, []string{ktls.CipherChaCha20Poly1305}
			p.Directions = []string{loadgen.DirectionUpload, loadgen.DirectionBoth}
			p.Buffers, p.KTLS = []int{16 << 10}, []ktls.Mode{ktls.ModeOn}
		}},
		{"sendfile", func(p *runner.ThroughputPlan) {
			p.Versions, p.Ciphers, p.Directions = []uint16{tls.VersionTLS12}, []string{ktls.CipherAES256GCM}, []string{loadgen.DirectionDownload}
			p.Buffers, p.KTLS, p.Source = []int{64 << 10}, []ktls.Mode{ktls.ModeOff, ktls.ModeOn}, file
			p.Bytes = int64(len(payload)) // one pass
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
	if len(recs) > 0 {
		t.Logf("KTLS-RUN kernel gcm(aes) driver: %s", recs[0].Env.GCMAESDriver)
	}
	t.Logf("KTLS-RUN %-54s %9s %7s %7s %9s %s", "case", "MB/s", "cli CPU", "srv CPU", "CPU-s/GB", "kTLS tx/rx (client tx,rx server tx,rx) tls_stat")
	rate := map[string]float64{}
	for _, rec := range recs {
		on := strings.Contains(rec.Name, "/ktls-on/")
		t.Run(rec.Name, func(t *testing.T) {
			checkVMRecord(t, rec, on)
		})
		cpu := (deref(rec.ClientCPUPct) + deref(rec.ServerCPUPct)) / 100 / (deref(rec.MBps) / 1000)
		t.Logf("KTLS-RUN %-54s %9.2f %6.0f%% %6.0f%% %9.1f %v/%v (%v,%v %v,%v) tx_sw+%v rx_sw+%v", rec.Name, deref(rec.MBps),
			deref(rec.ClientCPUPct), deref(rec.ServerCPUPct), cpu, deref(rec.KTLSTX), deref(rec.KTLSRX),
			rec.Extra["client_ktls_tx"], rec.Extra["client_ktls_rx"], rec.Extra["server_ktls_tx"], rec.Extra["server_ktls_rx"],
			rec.Extra["tls_tx_sw"], rec.Extra["tls_rx_sw"])
		rate[rec.Name] = deref(rec.MBps)
	}
	for _, rec := range recs {
		if off, ok := strings.CutSuffix(rec.Name, "/ktls-on/c1"); ok {
			if user := rate[off+"/ktls-off/c1"]; user > 0 {
				t.Logf("KTLS-RUN ratio %-48s kTLS/user %.2fx", off, rate[rec.Name]/user)
			}
		}
	}
}

func checkVMRecord(t *testing.T, rec results.Record, on bool) {
	t.Helper()
	if rec.MBps == nil || *rec.MBps <= 0 || rec.Iterations != 3 {
		t.Fatalf("no figures: mbps %v iterations %d notes %q", rec.MBps, rec.Iterations, rec.Notes)
	}
	if rec.KTLSTX == nil || rec.KTLSRX == nil || *rec.KTLSTX != on || *rec.KTLSRX != on {
		t.Errorf("ktls_tx %v ktls_rx %v, want %v (notes %q)", rec.KTLSTX, rec.KTLSRX, on, rec.Notes)
	}
	for _, k := range []string{"client_ktls_tx", "client_ktls_rx", "server_ktls_tx", "server_ktls_rx"} {
		if want := b2f(on); rec.Extra[k] != want {
			t.Errorf("%s %v, want %v", k, rec.Extra[k], want)
		}
	}
	// Each end of each connection installs TX and RX: two software
	// contexts per direction per connection, none without kTLS.
	wantSW := 0.0
	if on {
		wantSW = float64(2 * rec.Concurrency)
	}
	if rec.Extra["tls_tx_sw"] != wantSW || rec.Extra["tls_rx_sw"] != wantSW {
		t.Errorf("/proc/net/tls_stat: TlsTxSw +%v TlsRxSw +%v, want +%v each", rec.Extra["tls_tx_sw"], rec.Extra["tls_rx_sw"], wantSW)
	}
	if rec.Extra["tls_decrypt_error"] != 0 {
		t.Errorf("/proc/net/tls_stat: TlsDecryptError +%v", rec.Extra["tls_decrypt_error"])
	}
	if strings.Contains(rec.Name, "/file/") {
		if want := b2f(on); rec.Extra["sendfile"] != want {
			t.Errorf("sendfile %v, want %v", rec.Extra["sendfile"], want)
		}
	}
	// The VM loads aesni_intel and kTLS has used gcm(aes): the driver the
	// kernel encrypts with is on record.
	if rec.Env.GCMAESDriver == "" {
		t.Error("env gcm_aes_driver is empty in a kernel that has gcm(aes)")
	}
	if rec.ClientCPUPct == nil || rec.ServerCPUPct == nil {
		t.Errorf("client CPU %v server CPU %v: both must be measured", rec.ClientCPUPct, rec.ServerCPUPct)
	}
	for _, n := range rec.Notes {
		if strings.Contains(n, "user-space TLS") {
			t.Errorf("note %q: kTLS fell back", n)
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
