package loadgen_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// testServer is an in-process built-in server on a loopback port.
type testServer struct {
	srv   *server.Server
	addr  string
	roots *x509.CertPool
	// stop ends the server before the test does (it is safe to call
	// again): its port then refuses connections.
	stop func()
}

func startServer(t *testing.T, mutate func(*tls.Config)) *testServer {
	t.Helper()
	o := servertest.StartOrigin(t, mutate)
	return &testServer{srv: o.Server.Server, addr: o.Addr, roots: o.CA.Pool(), stop: func() { o.Stop() }}
}

func (s *testServer) handshakeCase(name string, version uint16, resume bool, conc int) measure.HandshakeCase {
	co := tlsconf.ClientOptions{Version: version, RootCAs: s.roots, ServerName: "localhost"}
	if resume {
		co.Sessions = tlsconf.NewSessionPool(conc, tlsconf.ReuseMulti).Scoped("")
	}
	return measure.HandshakeCase{
		Name: name, Version: version, Resume: resume, Concurrency: conc,
		Handshakes: 32, Iterations: 2, Warmup: 1, MinResumption: share(measure.DefaultMinResumption),
		Clients: []*tls.Config{tlsconf.Client(co)},
		Dialer:  client.TCPDialer{Addr: s.addr},
		Server:  inProcess{s.srv},
	}
}

// TestTLS13ResumptionNeedsTicketRead shows the trap tlsbench exists to
// avoid: a TLS 1.3 client that closes right after the handshake never
// reads the server's ticket, so it never resumes; reading one byte after
// the handshake is enough. TLS 1.2 tickets arrive inside the handshake.
func TestTLS13ResumptionNeedsTicketRead(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	tests := []struct {
		version  uint16
		exchange client.Exchange
		name     string
		want     float64
		agree    bool // client and server counts must match
	}{
		{tls.VersionTLS13, client.NoExchange, "tls1.3 no read", 0, false},
		{tls.VersionTLS13, client.PingPong, "tls1.3 ping-pong", 1, true},
		{tls.VersionTLS12, client.NoExchange, "tls1.2 no read", 1, false},
		{tls.VersionTLS12, client.PingPong, "tls1.2 ping-pong", 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := s.handshakeCase(tt.name, tt.version, true, 4)
			hc.Exchange = tt.exchange
			hc.MinResumption = nil // measure whatever happens
			rec, err := loadgen.RunHandshakes(context.Background(), hc)
			if err != nil {
				t.Fatal(err)
			}
			if rec.ResumptionRate != tt.want {
				t.Errorf("resumption rate %.3f, want %.0f", rec.ResumptionRate, tt.want)
			}
			if rec.ServerResumed == nil {
				t.Fatal("server resumption count missing")
			}
			// Without the exchange the client's RST can overtake its own
			// Finished, so the server may count a failed handshake
			// instead: client and server agree only with the exchange.
			if *rec.ServerResumed != rec.Resumed && tt.agree {
				t.Errorf("server counted %d resumed, client %d", *rec.ServerResumed, rec.Resumed)
			}
		})
	}
}

func TestResumptionErrorWhenServerDoesNotResume(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *tls.Config) { c.SessionTicketsDisabled = true })
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		hc := s.handshakeCase("resume-"+tlsconf.VersionName(v), v, true, 2)
		rec, err := loadgen.RunHandshakes(context.Background(), hc)
		var re *measure.ResumptionError
		if !errors.As(err, &re) {
			t.Fatalf("TLS %s: got record %v, error %v; want a ResumptionError", tlsconf.VersionName(v), rec, err)
		}
		if re.Rate != 0 || re.Total == 0 || !re.HasServerCounts || re.ServerResumed != 0 {
			t.Errorf("ResumptionError %+v: want rate 0 over some handshakes, server 0", re)
		}
		if msg := err.Error(); !strings.Contains(msg, "below MinResumption 0.99") || !strings.Contains(msg, "probe") {
			t.Errorf("message %q should name MinResumption and suggest probe", msg)
		}
	}
}

// TestNoWarmupStillChecksResumption: with --warmup 0 the measured
// iterations are held to --min-resumption; the record is kept and the case
// fails.
func TestNoWarmupStillChecksResumption(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *tls.Config) { c.SessionTicketsDisabled = true })
	hc := s.handshakeCase("nowarm", tls.VersionTLS13, true, 2)
	hc.Warmup = 0
	rec, err := loadgen.RunHandshakes(context.Background(), hc)
	var re *measure.ResumptionError
	if !errors.As(err, &re) || !re.Measured || rec == nil || rec.ResumptionRate != 0 {
		t.Fatalf("record %v, error %v: want the record and a ResumptionError on the measured iterations", rec, err)
	}
}

func TestFailuresCountedByKind(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	hc := s.handshakeCase("mixed", tls.VersionTLS13, false, 4)
	// Every other connection uses a client that does not trust the
	// server's CA.
	bad := tlsconf.Client(tlsconf.ClientOptions{Version: tls.VersionTLS13, RootCAs: x509.NewCertPool(), ServerName: "localhost"})
	hc.Clients = append(hc.Clients, bad)
	hc.MaxErrorRate = 1 // measure whatever happens
	rec, err := loadgen.RunHandshakes(context.Background(), hc)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Verdict != "" {
		t.Errorf("verdict %q with the error-rate gate off", rec.Verdict)
	}
	total := int64(hc.Handshakes * rec.Iterations)
	if rec.Handshakes != total/2 || rec.Errors != total/2 {
		t.Errorf("handshakes %d errors %d, want %d each", rec.Handshakes, rec.Errors, total/2)
	}
	if rec.ErrorsByKind["verify"] != total/2 {
		t.Errorf("errors by kind %v, want %d verify", rec.ErrorsByKind, total/2)
	}

	// Under the gate the same case fails in its measured iterations:
	// failures that come at once are not worth stopping the warm-up for
	// (only timeouts are, see TestPartlySilentServerFailsFast), so the
	// record is kept, marked failed, with every failure counted.
	hc.MaxErrorRate = 0.25
	rec, err = loadgen.RunHandshakes(context.Background(), hc)
	var ee *measure.ErrorRateError
	if !errors.As(err, &ee) || rec == nil || ee.Warmup || rec.Verdict != "failed" || rec.ErrorsByKind["verify"] != total/2 {
		t.Fatalf("record %+v, error %v: want the record marked failed and a measured ErrorRateError counting verify %d", rec, err, total/2)
	}

	// Without a warm-up, the measured iterations fail the gate; failures
	// that come at once are counted to the end: the record holds them
	// all, marked failed.
	hc.Warmup = 0
	rec, err = loadgen.RunHandshakes(context.Background(), hc)
	if !errors.As(err, &ee) || rec == nil || rec.Verdict != "failed" || ee.Kinds["verify"] != total/2 || ee.Planned != 0 {
		t.Fatalf("record %+v, error %v: want the record marked failed and an ErrorRateError counting verify %d", rec, err, total/2)
	}
	if msg := err.Error(); !strings.Contains(msg, "above MaxErrorRate 25%") || !strings.Contains(msg, fmt.Sprintf("verify %d", total/2)) {
		t.Errorf("message %q should name the flag, the limit and the kinds with counts", msg)
	}

	// A case in which every handshake fails is not measured at all.
	hc.Clients = []*tls.Config{bad}
	_, err = loadgen.RunHandshakes(context.Background(), hc)
	var ce *measure.CaseError
	if !errors.As(err, &ce) || ce.Kind != "verify" {
		t.Errorf("got %v, want a CaseError of kind verify", err)
	}
}

// TestTimeWaitBounded checks the abortive close: however many connections
// a run makes, no socket of it is left in TIME_WAIT.
// Not parallel: it counts machine-wide TIME_WAIT sockets, which other tests' connections add to.
func TestTimeWaitBounded(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("needs /proc/net/tcp (Linux)")
	}
	s := startServer(t, nil)
	hc := s.handshakeCase("tw", tls.VersionTLS13, true, 8)
	hc.Iterations = 4
	hc.Handshakes = 64
	if _, err := loadgen.RunHandshakes(context.Background(), hc); err != nil {
		t.Fatal(err)
	}
	_, portStr, _ := net.SplitHostPort(s.addr)
	port, _ := strconv.Atoi(portStr)
	n := countTimeWait(t, port)
	if n > hc.Concurrency {
		t.Errorf("%d sockets of port %d in TIME_WAIT after %d connections; want at most the concurrency %d",
			n, port, (hc.Iterations+hc.Warmup+1)*hc.Handshakes, hc.Concurrency)
	}
}

// countTimeWait counts IPv4 sockets with local or remote port in state
// TIME_WAIT (06), from /proc/net/tcp.
func countTimeWait(t *testing.T, port int) int {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hexPort := fmt.Sprintf(":%04X", port)
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || fields[3] != "06" {
			continue
		}
		if strings.HasSuffix(fields[1], hexPort) || strings.HasSuffix(fields[2], hexPort) {
			n++
		}
	}
	return n
}

func TestInterruptedCaseKeepsMeasuredIterations(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	hc := s.handshakeCase("interrupt", tls.VersionTLS12, false, 2)
	hc.Iterations = 1000
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	hc.Progress = func(p measure.Progress) {
		if !p.Warmup {
			if n++; n == 3 {
				cancel()
			}
		}
	}
	rec, err := loadgen.RunHandshakes(ctx, hc)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if rec == nil || rec.Iterations < 3 || len(rec.SamplesUS) != rec.Iterations {
		t.Fatalf("record %+v: want the iterations measured before the interrupt", rec)
	}
	// The iteration cut short is dropped: its cancelled connections are
	// no errors of the server's, and its time is no sample.
	if rec.Errors != 0 || rec.Handshakes != int64(rec.Iterations*hc.Handshakes) {
		t.Errorf("errors %d (%v), handshakes %d for %d iterations: the interrupted iteration was kept",
			rec.Errors, rec.ErrorsByKind, rec.Handshakes, rec.Iterations)
	}
	if len(rec.Notes) == 0 || !strings.Contains(rec.Notes[len(rec.Notes)-1], "interrupted") {
		t.Errorf("notes %q should say the case was interrupted", rec.Notes)
	}
}

func TestMemoryTransport(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	for _, resume := range []bool{false, true} {
		hc := s.handshakeCase("memory", tls.VersionTLS13, resume, 8)
		hc.Dialer = memDialer{s.srv}
		rec, err := loadgen.RunHandshakes(context.Background(), hc)
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		if resume {
			want = 1
		}
		if rec.Transport != "memory" || rec.ResumptionRate != want {
			t.Errorf("transport %q rate %.2f, want memory and %.0f", rec.Transport, rec.ResumptionRate, want)
		}
		// Client and server share the process: their CPU cannot be
		// told apart, and must not be guessed.
		if rec.ClientCPUUS != nil || rec.ServerCPUUS != nil || rec.ProcessCPUUS == nil {
			t.Errorf("memory transport CPU: client %v server %v process %v; want null, null, a value",
				rec.ClientCPUUS, rec.ServerCPUUS, rec.ProcessCPUUS)
		}
	}
}
