package ktls

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
)

func TestSupportedGivesOneLineReason(t *testing.T) {
	t.Parallel()
	err := Supported()
	if err == nil {
		if runtime.GOOS != "linux" {
			t.Fatal("Supported() = nil off Linux")
		}
		t.Skip("this kernel supports kTLS; nothing to check about the reason")
	}
	if os.Getenv(vmEnv) == "1" {
		t.Fatalf("inside the kTLS VM Supported() must succeed: %v", err)
	}
	if !errors.Is(err, ErrUnsupported) {
		t.Errorf("error does not wrap ErrUnsupported: %v", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || len(msg) > 300 {
		t.Errorf("reason is not one short line: %q", msg)
	}
	if runtime.GOOS == "linux" {
		ulp, _ := os.ReadFile("/proc/sys/net/ipv4/tcp_available_ulp")
		if !strings.Contains(string(ulp), "tls") && !strings.Contains(msg, "CONFIG_TLS") {
			t.Errorf("kernel without the tls ULP, but the reason does not say so: %q", msg)
		}
	} else if !strings.Contains(msg, "not supported on "+runtime.GOOS) {
		t.Errorf("reason %q does not name the OS", msg)
	}
	t.Logf("Supported() = %v", err)
}

func TestModeDecide(t *testing.T) {
	t.Parallel()
	no := func() error { return errors.Join(ErrUnsupported, errors.New("kernel has no TLS ULP (CONFIG_TLS)")) }
	yes := func() error { return nil }
	for _, tc := range []struct {
		mode    string
		probe   func() error
		use     bool
		reason  string
		wantErr bool
	}{
		{"off", yes, false, "kTLS off", false},
		{"auto", yes, true, "", false},
		{"auto", no, false, "CONFIG_TLS", false},
		{"on", yes, true, "", false},
		{"on", no, false, "", true},
	} {
		m, err := ParseMode(tc.mode)
		if err != nil {
			t.Fatal(err)
		}
		use, reason, err := m.decide(tc.probe)
		if use != tc.use || (err != nil) != tc.wantErr || !strings.Contains(reason, tc.reason) {
			t.Errorf("%s: use=%v reason=%q err=%v", tc.mode, use, reason, err)
		}
		if tc.wantErr && !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: error %v does not wrap ErrUnsupported", tc.mode, err)
		}
	}
	if _, err := ParseMode("yes"); err == nil {
		t.Error("ParseMode accepted junk")
	}
	// The real probe gives a consistent answer.
	use, reason, err := ModeAuto.Decide()
	if err != nil || use != (Supported() == nil) || (!use && reason == "") {
		t.Errorf("auto: use=%v reason=%q err=%v", use, reason, err)
	}
}

func TestParseTLSStat(t *testing.T) {
	t.Parallel()
	m, err := parseTLSStat(strings.NewReader("TlsCurrTxSw                     \t1\nTlsCurrRxSw 0\nTlsTxSw 12\nTlsDecryptError 0\n"))
	if err != nil || m["TlsTxSw"] != 12 || m["TlsCurrTxSw"] != 1 || len(m) != 4 {
		t.Fatalf("%v %v", m, err)
	}
	d := StatDelta(map[string]int64{"TlsTxSw": 10}, m)
	if d["TlsTxSw"] != 2 || d["TlsCurrTxSw"] != 1 {
		t.Errorf("delta %v", d)
	}
	if _, err := parseTLSStat(strings.NewReader("TlsTxSw x\n")); err == nil {
		t.Error("bad value accepted")
	}
}

func TestParseDirection(t *testing.T) {
	t.Parallel()
	for _, d := range []Direction{TX, RX, Both} {
		got, err := ParseDirection(d.String())
		if err != nil || got != d {
			t.Errorf("%v: %v %v", d, got, err)
		}
	}
}
