package probe_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/probe"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// startBuiltinQUIC starts tlsbench's built-in server from o, serving
// QUIC on a free UDP port of 127.0.0.1 until the test ends.
func startBuiltinQUIC(t *testing.T, p *testPKI, o server.Options) (string, *server.Server) {
	t.Helper()
	o.Identities = []server.IdentityFiles{{Cert: p.CertFile, Key: p.KeyFile}}
	srv, err := server.NewFromOptions(o)
	if err != nil {
		t.Fatal(err)
	}
	s := servertest.StartQUIC(t, srv)
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("server: %v", err)
		}
	})
	return s.Addr, srv
}

// quicOptions are probe options over QUIC for a local test server.
func quicOptions(p *testPKI, addr string) probe.Options {
	return probe.Options{
		Addr:       addr,
		ServerName: "localhost",
		RootCAs:    p.CA.Pool(),
		QUIC:       true,
		Timeout:    5 * time.Second,
		TicketWait: 100 * time.Millisecond,
	}
}

// expectQUIC is what a test asserts about a probe over QUIC: each field
// a status, with an optional substring of the detail after a colon
// ("no:single-use"); empty fields are not checked.
type expectQUIC struct {
	Handshake, V1, V2, Tickets, MaxEarlyData, Resumption, EarlyData, Reuse, Replay string
	ALPN, Response                                                                 string
}

func checkQUIC(t *testing.T, rep *probe.Report, want expectQUIC) {
	t.Helper()
	q := rep.QUIC
	if q == nil || rep.Transport != probe.TransportQUIC {
		t.Fatalf("report over %q without QUIC findings", rep.Transport)
	}
	check := func(name string, f probe.Finding, w string) {
		t.Helper()
		if w == "" {
			return
		}
		status, sub, _ := strings.Cut(w, ":")
		if string(f.Status) != status || !strings.Contains(f.Detail, sub) {
			t.Errorf("%s = %s: %s\nwant %s containing %q", name, f.Status, f.Detail, status, sub)
		}
	}
	check("handshake", q.Handshake, want.Handshake)
	if len(q.Versions) == 2 {
		check("v1", q.Versions[0].Accepted, want.V1)
		check("v2", q.Versions[1].Accepted, want.V2)
	} else {
		t.Errorf("versions %+v, want v1 and v2", q.Versions)
	}
	check("tickets", q.Tickets.Finding, want.Tickets)
	check("max_early_data", q.Tickets.MaxEarlyData, want.MaxEarlyData)
	check("resumption", q.Resumption, want.Resumption)
	check("early data", q.EarlyData, want.EarlyData)
	check("early data on a reused ticket", q.EarlyDataReuse, want.Reuse)
	check("replay", q.Replay.Finding, want.Replay)
	if want.ALPN != "" && q.ALPN != want.ALPN {
		t.Errorf("ALPN %q, want %q", q.ALPN, want.ALPN)
	}
	if want.Response != "" && q.Response != want.Response {
		t.Errorf("response %q, want %q", q.Response, want.Response)
	}
}

// The built-in server under each early-data policy, over its own ping
// protocol and over HTTP/3: one ticket per connection, 7 days, allowing
// early data whatever the policy; v1 and v2. Under accept, early data is
// accepted on a fresh ticket, on a reused one and in a replayed flight;
// under single-use (and with no policy set, the server's default) only on
// a ticket's first use; under reject never. The
// server's own counts of early data accepted and rejected agree.
func TestQUICBuiltin(t *testing.T) {
	t.Parallel()
	accept := expectQUIC{Handshake: "yes", V1: "yes", V2: "yes", Tickets: "yes:604800 s", MaxEarlyData: "yes:0xffffffff",
		Resumption: "yes", EarlyData: "yes:answered: echo", Reuse: "yes", Replay: "yes:it accepted the replayed early data",
		ALPN: tlsconf.ALPNQUICPing, Response: "echo"}
	singleUse := accept
	singleUse.Reuse, singleUse.Replay = "no:single-use", "no:it rejected the early data"
	reject := accept
	reject.EarlyData, reject.Reuse, reject.Replay = "no:rejected its early data", "not tested:did not accept early data", "not tested:did not accept early data"
	h3 := accept
	h3.ALPN, h3.Response, h3.EarlyData = probe.ALPNHTTP3, "HTTP/3.0 200 OK", "yes:answered: HTTP/3.0 200 OK"
	tests := []struct {
		policy string
		alpn   []string
		want   expectQUIC
		// The server's counts of early data accepted and rejected: the
		// original, the reuse (and its confirmation with an unused
		// ticket); the replay never completes a handshake.
		accepted, rejected int64
	}{
		{server.EarlyDataAccept, nil, accept, 2, 0},
		{server.EarlyDataSingleUse, nil, singleUse, 2, 1},
		{"", nil, singleUse, 2, 1},
		{server.EarlyDataReject, nil, reject, 0, 1},
		{server.EarlyDataAccept, []string{probe.ALPNHTTP3}, h3, 2, 0},
	}
	for _, tt := range tests {
		t.Run("policy="+tt.policy+strings.Join(tt.alpn, ","), func(t *testing.T) {
			t.Parallel()
			p := newPKI(t)
			addr, srv := startBuiltinQUIC(t, p, server.Options{EarlyDataPolicy: tt.policy})
			o := quicOptions(p, addr)
			o.ALPN = tt.alpn
			rep := runProbe(t, o)
			checkQUIC(t, rep, tt.want)
			if c := srv.Counters(); c.EarlyDataAccepted != tt.accepted || c.EarlyDataRejected != tt.rejected {
				t.Errorf("server counted early data accepted %d, rejected %d; want %d, %d", c.EarlyDataAccepted, c.EarlyDataRejected, tt.accepted, tt.rejected)
			}
			if q := rep.QUIC; q.Tickets.PerConnection != 1 || len(q.Tickets.LifetimeSeconds) != 1 || q.Version != "v1" {
				t.Errorf("tickets %+v, version %q; want one 7-day ticket, v1", q.Tickets, q.Version)
			}
			if r := rep.QUIC.Replay; tt.policy != server.EarlyDataReject && (r.Answer == nil || r.Original == nil || r.Baseline == nil || r.ZeroRTT == 0 || r.Initial == 0) {
				t.Errorf("replay evidence missing: %+v", r)
			}
		})
	}
}

// TestQUICReportJSON: the QUIC findings' JSON field names are a contract
// for scripts, and the table names each finding.
func TestQUICReportJSON(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	// accept: the replay test's evidence is all there.
	addr, _ := startBuiltinQUIC(t, p, server.Options{EarlyDataPolicy: server.EarlyDataAccept})
	rep := runProbe(t, quicOptions(p, addr))
	var b strings.Builder
	if err := probe.WriteJSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	var back probe.Report
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil || back.QUIC == nil || back.QUIC.Replay.Status != probe.Yes {
		t.Fatalf("JSON does not decode into the report (%v):\n%s", err, b.String())
	}
	for _, f := range []string{`"transport": "quic"`, `"quic"`, `"handshake"`, `"quic_version"`, `"alpn"`, `"versions"`, `"tickets"`,
		`"max_early_data"`, `"resumption"`, `"early_data"`, `"early_data_ticket_reuse"`, `"replay"`, `"answer"`,
		`"original"`, `"baseline"`, `"one_rtt"`, `"wait_ms"`, `"delay_ms"`} {
		if !strings.Contains(b.String(), f) {
			t.Errorf("JSON has no %s", f)
		}
	}
	b.Reset()
	if err := probe.WriteTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"transport           QUIC (TLS 1.3 over UDP)", "version v2 accepted", "tickets allow early data",
		"PSK resumption", "0-RTT accepted", "0-RTT on a reused ticket", "replayed 0-RTT accepted   yes:"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

// An untrusted certificate over QUIC: the handshake got as far as the
// certificate, the chain is reported, and nothing else is tested without
// Insecure; with Insecure everything is.
func TestQUICUntrusted(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	addr, _ := startBuiltinQUIC(t, p, server.Options{})
	o := quicOptions(p, addr)
	o.RootCAs = nil
	rep := runProbe(t, o)
	if rep.Certificate.Verified.Status != probe.No || len(rep.Certificate.Certificates) != 1 {
		t.Errorf("certificate: %+v", rep.Certificate)
	}
	skipped := "not tested:give RootCAs FILE or ServerName NAME, or Insecure"
	checkQUIC(t, rep, expectQUIC{Handshake: "yes:did not verify", V2: skipped, Resumption: skipped, EarlyData: skipped, Replay: skipped})
	o.Insecure = true
	checkQUIC(t, runProbe(t, o), expectQUIC{Handshake: "yes", Resumption: "yes", EarlyData: "yes"})
}

// The settings the library refuses over QUIC.
func TestQUICOptions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		o    probe.Options
		want string
	}{
		{probe.Options{Addr: "127.0.0.1:1", QUIC: true, Request: probe.RequestLine}, "over QUIC the request is"},
		{probe.Options{Addr: "127.0.0.1:1", QUIC: true, Versions: []uint16{tls.VersionTLS12}}, "QUIC carries TLS 1.3 only"},
	} {
		if _, err := probe.Run(context.Background(), tt.o); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want an error saying %q", tt.o, err, tt.want)
		}
	}
}
