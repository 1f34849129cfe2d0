package loadgen_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// TestWordsNameSettings: a case's messages name its settings and give
// advice in the caller's words, and by field name without them; an
// observer-less case knows no server counts and says none.
func TestWordsNameSettings(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *tls.Config) { c.SessionTicketsDisabled = true })
	words := client.Words{
		Names:  map[string]string{"MinResumption": "--min-resumption"},
		Advice: map[string]string{client.AdviceUntrusted: "pass --ca"},
	}
	hc := s.handshakeCase("words", tls.VersionTLS13, true, 2)
	hc.Words, hc.Server = words, nil
	_, err := loadgen.RunHandshakes(context.Background(), hc)
	var re *measure.ResumptionError
	if !errors.As(err, &re) || re.HasServerCounts {
		t.Fatalf("%v: want a ResumptionError without server counts", err)
	}
	msg := err.Error()
	for _, want := range []string{"below --min-resumption 0.99", "or lower --min-resumption to measure anyway"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "the server counted") {
		t.Errorf("message %q reports server counts it does not have", msg)
	}

	untrusted := tlsconf.Client(tlsconf.ClientOptions{Version: tls.VersionTLS13, RootCAs: x509.NewCertPool(), ServerName: "localhost"})
	for _, tc := range []struct {
		words client.Words
		want  string
	}{
		{words, "(pass --ca)"},
		{client.Words{}, "(give the client the CA that issued the server's certificate, or skip verification)"},
	} {
		hc := s.handshakeCase("untrusted", tls.VersionTLS13, false, 2)
		hc.Clients, hc.Words = []*tls.Config{untrusted}, tc.words
		_, err := loadgen.RunHandshakes(context.Background(), hc)
		var ce *measure.CaseError
		if !errors.As(err, &ce) || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%v: want a CaseError ending %q", err, tc.want)
		}
	}
}

// TestCaseSettingsAreFieldErrors: a setting a case cannot run with is a
// *field.Error naming the field, never a flag.
func TestCaseSettingsAreFieldErrors(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	for _, tc := range []struct {
		mutate func(*measure.HandshakeCase)
		field  string
	}{
		{func(hc *measure.HandshakeCase) { hc.Concurrency = 0 }, "Concurrency"},
		{func(hc *measure.HandshakeCase) { hc.Iterations = -1 }, "Iterations"},
		{func(hc *measure.HandshakeCase) { hc.MinResumption = share(1.5) }, "MinResumption"},
		{func(hc *measure.HandshakeCase) { hc.MinResumption = share(-1) }, "MinResumption"},
		{func(hc *measure.HandshakeCase) { hc.MaxErrorRate = 2 }, "MaxErrorRate"},
		{func(hc *measure.HandshakeCase) { hc.Dialer = nil }, "Dialer"},
		{func(hc *measure.HandshakeCase) { hc.ClientIdentities = []string{"a", "b"} }, "ClientIdentities"},
	} {
		hc := s.handshakeCase("bad", tls.VersionTLS13, true, 2)
		tc.mutate(&hc)
		_, err := loadgen.RunHandshakes(context.Background(), hc)
		var fe *field.Error
		if !errors.As(err, &fe) || fe.Field != tc.field || strings.Contains(err.Error(), "--") {
			t.Errorf("%s: %v, want a field error naming it", tc.field, err)
		}
	}
	tp := throughputCase(s.addr, tlsconf.Client(tlsconf.ClientOptions{RootCAs: s.roots, ServerName: "localhost"}), loadgen.DirectionUpload)
	tp.Source = &loadgen.FileSource{Path: "/nonexistent", Index: 1}
	_, err := loadgen.RunThroughput(context.Background(), tp)
	var fe *field.Error
	if !errors.As(err, &fe) || fe.Field != "Direction" {
		t.Errorf("upload of a file: %v, want a field error naming Direction", err)
	}
}
