package ktls

import (
	"crypto/tls"
	"errors"
	"strings"
	"testing"
)

// TestSupportedForOffKernel: where the kernel has no kTLS (this machine,
// CI), every triple is refused as unsupported, before any connection is
// touched; bad arguments are refused whatever the kernel.
func TestSupportedForOffKernel(t *testing.T) {
	t.Parallel()
	if err := SupportedFor(tls.VersionTLS13, CipherAES128GCM, 0); err == nil || errors.Is(err, ErrUnsupported) {
		t.Errorf("direction 0: %v", err)
	}
	if Supported() == nil {
		t.Skip("this kernel supports kTLS (the VM tests cover it)")
	}
	for _, version := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		for _, cipher := range []string{CipherAES128GCM, CipherAES256GCM, CipherChaCha20Poly1305} {
			for _, dir := range []Direction{TX, RX, Both} {
				err := SupportedFor(version, cipher, dir)
				if !errors.Is(err, ErrUnsupported) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s %s %v: %v, want an ErrUnsupported one-liner", tls.VersionName(version), cipher, dir, err)
				}
			}
		}
	}
}

// TestSupportedForUnknown: a cipher or version kTLS has no equivalent for
// is unsupported (an auto caller falls back), named in the reason.
func TestSupportedForUnknown(t *testing.T) {
	t.Parallel()
	if Supported() != nil {
		t.Skip("no kTLS here: Supported's reason comes first")
	}
	for _, tc := range []struct {
		version uint16
		cipher  string
	}{{tls.VersionTLS13, "aes128cbc"}, {tls.VersionTLS11, CipherAES128GCM}, {tls.VersionTLS12, ""}} {
		if err := SupportedFor(tc.version, tc.cipher, TX); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%v: %v", tc, err)
		}
	}
}

// TestSpliceNeedsKTLS: Splice refuses, as unsupported and without moving
// a byte, connections that do not have RX on the source and TX on the
// destination in the kernel.
func TestSpliceNeedsKTLS(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		dst, src *Conn
	}{
		{"nil", nil, nil},
		{"source without RX", &Conn{state: State{TX: true}}, &Conn{state: State{TX: true}}},
		{"destination without TX", &Conn{state: State{RX: true}}, &Conn{state: State{RX: true}}},
	} {
		n, err := Splice(tc.dst, tc.src, 0)
		if n != 0 || !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %d, %v", tc.name, n, err)
		}
	}
}

// TestDecideFor: --ktls auto falls back with SupportedFor's reason, on
// refuses with it, off never asks.
func TestDecideFor(t *testing.T) {
	t.Parallel()
	if Supported() == nil {
		t.Skip("this kernel supports kTLS (the VM tests cover it)")
	}
	use, reason, err := ModeAuto.DecideFor(tls.VersionTLS13, CipherChaCha20Poly1305, Both)
	if use || err != nil || !strings.HasPrefix(reason, "user-space TLS: kTLS is not supported") {
		t.Errorf("auto: %v %q %v", use, reason, err)
	}
	if use, _, err := ModeOn.DecideFor(tls.VersionTLS13, CipherChaCha20Poly1305, Both); use || !errors.Is(err, ErrUnsupported) {
		t.Errorf("on: %v %v", use, err)
	}
	if use, reason, err := ModeOff.DecideFor(tls.VersionTLS13, CipherChaCha20Poly1305, Both); use || err != nil || reason != "kTLS off" {
		t.Errorf("off: %v %q %v", use, reason, err)
	}
}
