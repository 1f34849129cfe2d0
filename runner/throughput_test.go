package runner_test

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
	"github.com/tlsbench/tlsbench/server"
)

func smallThroughputPlan() runner.ThroughputPlan {
	return runner.ThroughputPlan{
		Versions:    []uint16{tls.VersionTLS12, tls.VersionTLS13},
		Ciphers:     []string{ktls.CipherAES128GCM, ktls.CipherAES256GCM, ktls.CipherChaCha20Poly1305},
		Buffers:     []int{16 << 10},
		KTLS:        []ktls.Mode{ktls.ModeOff},
		Directions:  []string{loadgen.DirectionDownload, loadgen.DirectionUpload, loadgen.DirectionBoth},
		Concurrency: []int{1},
		Bytes:       384 << 10,
		Iterations:  2,
		ChildEnv:    []string{testchild.Env()},
	}
}

func runThroughput(t *testing.T, p runner.ThroughputPlan) []results.Record {
	t.Helper()
	return collect(t, len(p.Cases()), func(emit func(*results.Record) error) error {
		return p.Run(context.Background(), emit)
	})
}

// TestThroughputUserSpaceMatrix moves verified data for every version x
// cipher x direction in user space, against the built-in server in a child
// process (server CPU measured apart) and in this process. TLS 1.3
// AES-256-GCM is reported as not runnable, with no figures.
func TestThroughputUserSpaceMatrix(t *testing.T) {
	t.Parallel()
	for _, inProcess := range []bool{false, true} {
		p := smallThroughputPlan()
		p.InProcess = inProcess
		where := "child"
		if inProcess {
			where = "in-process"
		}
		for _, rec := range runThroughput(t, p) {
			t.Run(where+"/"+rec.Name, func(t *testing.T) {
				if rec.Kind != results.KindThroughput || rec.Concurrency != 1 || rec.BufferBytes != 16<<10 {
					t.Errorf("descriptive fields: %+v", rec)
				}
				if rec.TLSVersion == "1.3" && strings.Contains(rec.Name, "aes256gcm") {
					if rec.MBps != nil || len(rec.Notes) != 1 || !strings.Contains(rec.Notes[0], "not runnable") {
						t.Errorf("TLS 1.3 AES-256-GCM: mbps %v notes %q, want no figures and a not-runnable note", rec.MBps, rec.Notes)
					}
					return
				}
				if !strings.Contains(rec.Name, "/"+rec.Cipher+"/") {
					t.Errorf("negotiated cipher %q, case %s", rec.Cipher, rec.Name)
				}
				dirs := 1.0
				if rec.Direction == loadgen.DirectionBoth {
					dirs = 2
				}
				if want := dirs * 2 * (384 << 10); rec.Extra["bytes"] != want {
					t.Errorf("moved %v bytes, want %v", rec.Extra["bytes"], want)
				}
				if rec.MBps == nil || *rec.MBps <= 0 || len(rec.SamplesUS) != 2 || rec.MeanUS <= 0 {
					t.Errorf("figures: mbps %v samples %v mean %v", rec.MBps, rec.SamplesUS, rec.MeanUS)
				}
				if rec.KTLSTX == nil || *rec.KTLSTX || rec.KTLSRX == nil || *rec.KTLSRX {
					t.Errorf("ktls_tx %v ktls_rx %v, want false/false with --ktls off", rec.KTLSTX, rec.KTLSRX)
				}
				if inProcess {
					if rec.ServerCPUPct != nil || rec.Extra["process_cpu_pct"] <= 0 {
						t.Errorf("in-process: server CPU %v, process CPU %v: only the total is known", rec.ServerCPUPct, rec.Extra["process_cpu_pct"])
					}
				} else if rec.ClientCPUPct == nil || *rec.ClientCPUPct <= 0 || rec.ServerCPUPct == nil || *rec.ServerCPUPct <= 0 ||
					rec.Extra["server_cpu_s_per_gb"] <= 0 {
					t.Errorf("child: client CPU %v, server CPU %v, server CPU-s/GB %v: all must be measured", rec.ClientCPUPct, rec.ServerCPUPct, rec.Extra["server_cpu_s_per_gb"])
				}
			})
		}
	}
}

// TestThroughputDuration: a duration-bound iteration keeps moving data in
// rounds until its time is up.
func TestThroughputDuration(t *testing.T) {
	t.Parallel()
	p := smallThroughputPlan()
	p.Versions, p.Ciphers, p.Directions = []uint16{tls.VersionTLS13}, []string{ktls.CipherChaCha20Poly1305}, []string{loadgen.DirectionBoth}
	p.Bytes, p.Duration = 0, 150e6
	p.InProcess = true
	rec := runThroughput(t, p)[0]
	if s := rec.Extra["seconds"]; s < 0.3 || s > 3 {
		t.Errorf("measured %.2fs for 2 iterations of 150ms", s)
	}
	if rec.Extra["bytes"] <= 0 || rec.MBps == nil {
		t.Errorf("no data moved: %+v", rec.Extra)
	}
}

// TestThroughputFileSource serves a file (not a multiple of any buffer)
// in whole passes and checks every byte; without kTLS TX the server reads
// it with the case's buffer size, and says so.
func TestThroughputFileSource(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "payload")
	data := make([]byte, 300<<10+7)
	rand.Read(data)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, inProcess := range []bool{false, true} {
		p := smallThroughputPlan()
		p.Versions, p.Ciphers, p.Directions = []uint16{tls.VersionTLS12}, []string{ktls.CipherAES256GCM}, []string{loadgen.DirectionDownload}
		p.Buffers = []int{4 << 10, 64 << 10}
		p.Bytes = 1 << 20 // 4 passes
		p.Source = path
		p.InProcess = inProcess
		for _, rec := range runThroughput(t, p) {
			if !strings.Contains(rec.Name, "/download/file/") {
				t.Errorf("name %s lacks the file segment", rec.Name)
			}
			if want := float64(2 * 4 * len(data)); rec.Extra["bytes"] != want {
				t.Errorf("%s: moved %v bytes, want %v (whole passes)", rec.Name, rec.Extra["bytes"], want)
			}
			if v, ok := rec.Extra["sendfile"]; !ok || v != 0 || !strings.Contains(strings.Join(rec.Notes, "\n"), "no sendfile") {
				t.Errorf("%s: sendfile %v notes %q", rec.Name, rec.Extra["sendfile"], rec.Notes)
			}
		}
	}
}

// TestThroughputKTLSOnThisKernel: outside a kTLS kernel, --ktls auto
// measures user space and records why, and --ktls on is refused before
// the run with the same reason.
func TestThroughputKTLSOnThisKernel(t *testing.T) {
	t.Parallel()
	if ktls.Supported() == nil {
		t.Skip("this kernel has kTLS; the VM test covers it (TestVMThroughput)")
	}
	p := smallThroughputPlan()
	p.Versions, p.Ciphers, p.Directions = []uint16{tls.VersionTLS13}, []string{ktls.CipherAES128GCM}, []string{loadgen.DirectionDownload}
	p.KTLS = []ktls.Mode{ktls.ModeAuto}
	p.InProcess = true
	rec := runThroughput(t, p)[0]
	notes := strings.Join(rec.Notes, "\n")
	if !strings.Contains(notes, "KTLS auto: user-space TLS: kTLS is not supported") || *rec.KTLSTX || *rec.KTLSRX {
		t.Errorf("auto fallback: notes %q ktls %v/%v", rec.Notes, *rec.KTLSTX, *rec.KTLSRX)
	}
	if !strings.Contains(rec.Name, "/ktls-auto/") {
		t.Errorf("name %s: the kTLS segment is the mode asked for", rec.Name)
	}

	p.KTLS = []ktls.Mode{ktls.ModeOff, ktls.ModeOn}
	err := p.Run(context.Background(), func(*results.Record) error {
		t.Error("a case ran although --ktls on cannot be honoured")
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "ktls on: kTLS is not supported") || !strings.Contains(err.Error(), "ktls auto") {
		t.Errorf("--ktls on: %v, want the reason and the fix", err)
	}
}

func TestThroughputPlanValidate(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, []byte("x"), 0o600)
	for _, tc := range []struct {
		name   string
		mutate func(*runner.ThroughputPlan)
		want   string // "" means valid
	}{
		{"ok", func(*runner.ThroughputPlan) {}, ""},
		{"bytes and duration", func(p *runner.ThroughputPlan) { p.Duration = 1e9 }, "Bytes"},
		{"neither", func(p *runner.ThroughputPlan) { p.Bytes = 0 }, "Bytes"},
		{"buffer too big", func(p *runner.ThroughputPlan) { p.Buffers = []int{2 << 20} }, "Buffers"},
		{"bad cipher", func(p *runner.ThroughputPlan) { p.Ciphers = []string{"rc4"} }, "Ciphers"},
		{"bad direction", func(p *runner.ThroughputPlan) { p.Directions = []string{"sideways"} }, "Directions"},
		{"upload from file", func(p *runner.ThroughputPlan) { p.Source = file }, "Source"},
		{"missing file", func(p *runner.ThroughputPlan) {
			p.Source, p.Directions = file+".nope", []string{loadgen.DirectionDownload}
		}, "Source"},
		{"only TLS 1.3 AES-256", func(p *runner.ThroughputPlan) {
			p.Versions, p.Ciphers = []uint16{tls.VersionTLS13}, []string{ktls.CipherAES256GCM}
		}, "Versions/Ciphers"},
		{"tls 1.0", func(p *runner.ThroughputPlan) { p.Versions = []uint16{tls.VersionTLS10} }, "Versions"},
		{"mutual", func(p *runner.ThroughputPlan) { p.Server.Mutual = true }, "Server.Mutual"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := smallThroughputPlan()
			tc.mutate(&p)
			err := p.Validate()
			var fe *plan.Error
			if tc.want == "" && err != nil || tc.want != "" && (!errors.As(err, &fe) || settingsAtFault(fe) != settingsOf(tc.want)) {
				t.Errorf("Validate: %v, want a field error naming %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "--") {
				t.Errorf("Validate: %v names a flag: the library names fields", err)
			}
		})
	}
}

// TestMaxBuffer holds the plan's largest buffer to the built-in
// server's: the flags refuse what the server would.
func TestMaxBuffer(t *testing.T) {
	t.Parallel()
	if plan.MaxBuffer != server.MaxBulkBuffer {
		t.Errorf("plan.MaxBuffer = %d, the built-in server's largest buffer is %d", plan.MaxBuffer, server.MaxBulkBuffer)
	}
}

// settingsAtFault names an error's settings at fault, "a/b" for several.
func settingsAtFault(e *plan.Error) string {
	if e.Setting == nil {
		return ""
	}
	names := []string{e.Setting.Name}
	for _, s := range e.Also {
		names = append(names, s.Name)
	}
	return strings.Join(names, "/")
}

// settingsOf names the settings of fields joined by "/".
func settingsOf(fields string) string {
	var names []string
	for _, f := range strings.Split(fields, "/") {
		if s := plan.OfField(f); s != nil {
			names = append(names, s.Name)
		} else {
			names = append(names, "no setting for "+f)
		}
	}
	return strings.Join(names, "/")
}
