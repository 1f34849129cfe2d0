package loadgen_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/quic-go/quic-go"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// quicServer is a QUIC echo server written for these tests with quic-go
// alone, speaking tlsbench's own exchange (tlsconf.ALPNQUICPing), so
// that the client is tested apart from the built-in server. Its policy
// says what it does with early data: accept it, reject it although its
// tickets permit it, or issue tickets that do not permit it (none).
type quicServer struct {
	addr  string
	roots *x509.CertPool
	// accepted counts the connections whose early data the server
	// accepted (quic-go's Used0RTT); resumed those that resumed.
	accepted, resumed, handshakes atomic.Int64
}

func startQUICServer(t *testing.T, policy string) *quicServer {
	t.Helper()
	cfg, ca := testpki.Server(t)
	cfg.NextProtos = []string{tlsconf.ALPNQUICPing}
	if policy == "reject" {
		// Tickets permit early data, but every session opened comes
		// back without the permission: the server refuses it.
		cfg.UnwrapSession = func(identity []byte, cs tls.ConnectionState) (*tls.SessionState, error) {
			ss, err := cfg.DecryptTicket(identity, cs)
			if ss != nil {
				ss.EarlyData = false
			}
			return ss, err
		}
	}
	ln, err := quic.ListenAddrEarly("127.0.0.1:0", cfg, &quic.Config{Allow0RTT: policy != "none"})
	if err != nil {
		t.Fatal(err)
	}
	s := &quicServer{addr: ln.Addr().String(), roots: ca.Pool()}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept(context.Background())
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.serve(conn)
			}()
		}
	}()
	return s
}

// serve echoes the byte of the connection's stream and ends the stream
// once the handshake is complete, its ticket sent.
func (s *quicServer) serve(conn *quic.Conn) {
	defer conn.CloseWithError(0, "")
	str, err := conn.AcceptStream(context.Background())
	if err != nil {
		return
	}
	var b [1]byte
	if _, err := io.ReadFull(str, b[:]); err != nil {
		return
	}
	str.Write(b[:])
	select {
	case <-conn.HandshakeComplete():
	case <-conn.Context().Done():
		return
	}
	st := conn.ConnectionState()
	s.handshakes.Add(1)
	if st.TLS.DidResume {
		s.resumed.Add(1)
	}
	if st.Used0RTT {
		s.accepted.Add(1)
	}
	str.Close()
	<-conn.Context().Done()
}

// Snapshot implements measure.ServerObserver.
func (s *quicServer) Snapshot() (measure.ServerSnapshot, error) {
	return measure.ServerSnapshot{HasCounts: true, Handshakes: s.handshakes.Load(), Resumed: s.resumed.Load(),
		HasEarlyData: true, EarlyDataAccepted: s.accepted.Load()}, nil
}

func (s *quicServer) handshakeCase(name string, resume, early bool) measure.HandshakeCase {
	co := tlsconf.ClientOptions{Version: tls.VersionTLS13, RootCAs: s.roots, ServerName: "localhost"}
	if resume {
		co.Sessions = tlsconf.NewSessionPool(4, tlsconf.ReuseMulti).Scoped("")
	}
	return measure.HandshakeCase{
		Name: name, Version: tls.VersionTLS13, Resume: resume, Concurrency: 4,
		Handshakes: 16, Iterations: 2, Warmup: 1, MinResumption: share(measure.DefaultMinResumption),
		Clients: []*tls.Config{tlsconf.Client(co)},
		QUIC:    &client.QUICDialer{Addr: s.addr, EarlyData: early},
		Server:  s,
	}
}

func TestQUICHandshakes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, policy  string
		resume, early bool
		// offered, accepted: of the handshakes; -1 when the record must
		// have no count (not an early-data case).
		offered, accepted int
		note              string
	}{
		{name: "full", policy: "accept", offered: -1},
		{name: "resume", policy: "accept", resume: true, offered: -1},
		{name: "resume 0-RTT accepted", policy: "accept", resume: true, early: true, offered: 1, accepted: 1},
		{name: "resume 0-RTT rejected", policy: "reject", resume: true, early: true, offered: 1, accepted: 0},
		{name: "resume 0-RTT not permitted", policy: "none", resume: true, early: true, offered: 0, accepted: 0,
			note: "no early data offered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := startQUICServer(t, tt.policy)
			rec, err := loadgen.RunHandshakes(context.Background(), s.handshakeCase(tt.name, tt.resume, tt.early))
			if err != nil {
				t.Fatal(err)
			}
			if rec.Transport != "quic" || rec.QUICVersion != "v1" || rec.Errors != 0 || rec.Verdict != "" {
				t.Errorf("transport %q, version %q, errors %d, verdict %q: want quic, v1, none, passed", rec.Transport, rec.QUICVersion, rec.Errors, rec.Verdict)
			}
			want := 0.0
			if tt.resume {
				want = 1
			}
			if rec.ResumptionRate != want || rec.ServerResumed == nil || *rec.ServerResumed != rec.Resumed {
				t.Errorf("resumed %d of %d (server %v), want a rate of %v on both ends", rec.Resumed, rec.Handshakes, rec.ServerResumed, want)
			}
			checkEarly(t, rec, tt.offered, tt.accepted)
			if tt.note != "" && !strings.Contains(strings.Join(rec.Notes, "\n"), tt.note) {
				t.Errorf("notes %q: want one saying %q", rec.Notes, tt.note)
			}
			checkQUICPhases(t, rec)
		})
	}
}

// checkEarly checks a record's early-data counts: offered and accepted
// as shares (0 or 1) of its handshakes, -1 for none recorded; the
// rejected are the rest of those offered, and the server's accepted
// count is the client's.
func checkEarly(t *testing.T, rec *results.Record, offered, accepted int) {
	t.Helper()
	if offered < 0 {
		if rec.EarlyDataOffered != nil || rec.EarlyDataAccepted != nil || rec.ServerEarlyDataAccepted != nil {
			t.Errorf("early data counted (%v offered) in a case that sends none", rec.EarlyDataOffered)
		}
		return
	}
	n := rec.Handshakes
	if rec.EarlyDataOffered == nil || rec.EarlyDataAccepted == nil || rec.EarlyDataRejected == nil || rec.ServerEarlyDataAccepted == nil {
		t.Fatalf("early-data counts missing: %v %v %v server %v", rec.EarlyDataOffered, rec.EarlyDataAccepted, rec.EarlyDataRejected, rec.ServerEarlyDataAccepted)
	}
	o, a, r := *rec.EarlyDataOffered, *rec.EarlyDataAccepted, *rec.EarlyDataRejected
	if o != int64(offered)*n || a != int64(accepted)*n || r != o-a {
		t.Errorf("early data offered %d, accepted %d, rejected %d of %d handshakes; want %d, %d and the rest", o, a, r, n, int64(offered)*n, int64(accepted)*n)
	}
	if *rec.ServerEarlyDataAccepted != a {
		t.Errorf("server counted %d accepted, client %d", *rec.ServerEarlyDataAccepted, a)
	}
}

// checkQUICPhases: a QUIC record has no connect phase, and its first
// response (every connection's) comes after its handshake began.
func checkQUICPhases(t *testing.T, rec *results.Record) {
	t.Helper()
	if _, ok := rec.Phases[results.PhaseConnect]; ok {
		t.Error("a QUIC record has a connect phase")
	}
	fr, hs := rec.Phases[results.PhaseFirstResponse], rec.Phases[results.PhaseHandshake]
	if fr.Count != rec.Handshakes || hs.Count != rec.Handshakes {
		t.Errorf("first_response over %d and handshake over %d connections, want all %d", fr.Count, hs.Count, rec.Handshakes)
	}
}

// TestQUICEarlyDataGate: a server that counts fewer early data accepted
// than the client saw fails the case, with the record kept.
func TestQUICEarlyDataGate(t *testing.T) {
	t.Parallel()
	s := startQUICServer(t, "accept")
	hc := s.handshakeCase("liar", true, true)
	hc.Server = lowCounts{s}
	rec, err := loadgen.RunHandshakes(context.Background(), hc)
	var ee *measure.EarlyDataError
	if !errors.As(err, &ee) || rec == nil || rec.Verdict != measure.VerdictFailed {
		t.Fatalf("record %v, error %v: want the record failed and an EarlyDataError", rec, err)
	}
	if ee.ClientAccepted <= ee.ServerAccepted || !strings.Contains(err.Error(), "were not accepted as such by the server") {
		t.Errorf("error %v: want the client's count above the server's, said", err)
	}
}

// lowCounts reports half the server's accepted early data.
type lowCounts struct{ s *quicServer }

func (l lowCounts) Snapshot() (measure.ServerSnapshot, error) {
	snap, err := l.s.Snapshot()
	snap.EarlyDataAccepted /= 2
	return snap, err
}

// TestQUICRefusals: settings a QUIC case cannot run with.
func TestQUICRefusals(t *testing.T) {
	t.Parallel()
	s := &quicServer{addr: "127.0.0.1:1", roots: x509.NewCertPool()}
	tests := []struct {
		name   string
		mutate func(*measure.HandshakeCase)
		field  string
	}{
		{"tls1.2", func(hc *measure.HandshakeCase) { hc.Version = tls.VersionTLS12 }, "Version"},
		{"early data without resumption", func(hc *measure.HandshakeCase) {
			hc.Resume = false
			hc.Clients[0].ClientSessionCache = nil
		}, "QUIC.EarlyData"},
		{"line request", func(hc *measure.HandshakeCase) { hc.QUIC.Request = client.RequestLine }, "QUIC.Request"},
	}
	for _, tt := range tests {
		hc := s.handshakeCase(tt.name, true, true)
		tt.mutate(&hc)
		_, err := loadgen.RunHandshakes(context.Background(), hc)
		if err == nil || !strings.Contains(err.Error(), tt.field) {
			t.Errorf("%s: error %v, want one naming %s", tt.name, err, tt.field)
		}
	}
}
