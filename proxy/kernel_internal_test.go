package proxy

import (
	"crypto/tls"
	"errors"
	"fmt"
	"testing"

	"github.com/tlsbench/tlsbench/internal/ktls"
)

// TestNoTLS12Tickets: with kernel TLS required, a client that offers
// TLS 1.3 gets the proxy's own configuration (tickets on), one that
// cannot gets a configuration without tickets.
func TestNoTLS12Tickets(t *testing.T) {
	t.Parallel()
	base := &tls.Config{MinVersion: tls.VersionTLS12}
	pick := noTLS12Tickets(base)
	if cfg, err := pick(&tls.ClientHelloInfo{SupportedVersions: []uint16{tls.VersionTLS13, tls.VersionTLS12}}); cfg != nil || err != nil {
		t.Errorf("TLS 1.3 client: %v, %v; want the base configuration (nil)", cfg, err)
	}
	cfg, err := pick(&tls.ClientHelloInfo{SupportedVersions: []uint16{tls.VersionTLS12}})
	if err != nil || cfg == nil || !cfg.SessionTicketsDisabled {
		t.Fatalf("TLS 1.2-only client: %v, %v; want tickets disabled", cfg, err)
	}
	if base.SessionTicketsDisabled {
		t.Error("the base configuration was changed")
	}
}

// TestFallbackKind: each reason the kernel refuses a leg has its key.
func TestFallbackKind(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("client leg: %w", ktls.ErrTLS12Resumed), FallbackTLS12Resumed},
		{errEarlyTLS, FallbackEarlyTLS},
		{fmt.Errorf("%w: no chacha20poly1305 in this kernel", ktls.ErrUnsupported), FallbackUnsupported},
		{fmt.Errorf("%w: setsockopt TCP_ULP \"tls\": no such file or directory", ktls.ErrNoKernelTLS), FallbackNoKernelTLS},
		{errors.New("refusing kernel TLS: duplicate client random"), FallbackError},
	} {
		if got := fallbackKind(tt.err); got != tt.want {
			t.Errorf("fallbackKind(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// TestSameHost: the SNI check compares names without case and one
// trailing dot, and addresses as addresses.
func TestSameHost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sni, host string
		want      bool
	}{
		{"localhost", "localhost", true},
		{"LOCALHOST", "localhost", true},
		{"localhost.", "localhost", true},
		{"localhost", "localhost.", true},
		{"localhost..", "localhost", false},
		{"evil.example", "localhost", false},
		{"localhost", "127.0.0.1", false},
		{"127.0.0.1", "127.0.0.1", true},
		{"::ffff:127.0.0.1", "127.0.0.1", true},
		{"::1", "0:0:0:0:0:0:0:1", true},
		{"127.0.0.2", "127.0.0.1", false},
		{"localhost", "", false},
	} {
		if got := sameHost(tc.sni, tc.host); got != tc.want {
			t.Errorf("sameHost(%q, %q) = %v, want %v", tc.sni, tc.host, got, tc.want)
		}
	}
}
