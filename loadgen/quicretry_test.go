package loadgen_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// retryingServer is quicServer that asks every client to prove its
// address (a real Retry) and refuses every refuseEvery-th connection
// that did (0: none), counting both as the built-in server does.
type retryingServer struct {
	*quicServer
	retries, refused atomic.Int64
	mu               sync.Mutex
	decided          map[string]decision // by client address
}

// decision is what the server decided for a client, and when.
type decision struct {
	refused bool
	at      time.Time
}

// refuse decides whether to refuse the client at addr, once per client,
// and counts it. A client let in asks once: its later packets reach its
// connection. A refused one asks again with each packet of its first
// flight, as no connection is made, and gets the same answer; only the
// packets of one flight come within moments, so a later client with the
// same address (a port used again) is a new one. (Every answer kept for
// moments miscounted a port used again after a connection let in, on a
// loaded machine.)
func (s *retryingServer) refuse(addr string, every int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.decided[addr]; ok && d.refused && time.Since(d.at) < 100*time.Millisecond {
		return true
	}
	n := s.retries.Add(1)
	r := every > 0 && n%every == 0
	if r {
		s.refused.Add(1)
	}
	s.decided[addr] = decision{r, time.Now()}
	return r
}

func startRetryingServer(t *testing.T, refuseEvery int64) *retryingServer {
	t.Helper()
	cfg, ca := testpki.Server(t)
	cfg.NextProtos = []string{tlsconf.ALPNQUICPing}
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	s := &retryingServer{quicServer: &quicServer{addr: udp.LocalAddr().String(), roots: ca.Pool()}, decided: map[string]decision{}}
	tr := &quic.Transport{Conn: udp, VerifySourceAddress: func(net.Addr) bool { return true },
		ConnContext: func(ctx context.Context, ci *quic.ClientInfo) (context.Context, error) {
			if !ci.AddrVerified {
				return ctx, nil
			}
			if s.refuse(ci.RemoteAddr.String(), refuseEvery) {
				return nil, errors.New("refused")
			}
			return ctx, nil
		}}
	ln, err := tr.Listen(cfg, &quic.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); tr.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept(context.Background())
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); s.serve(conn) }()
		}
	}()
	return s
}

// Snapshot implements measure.ServerObserver.
func (s *retryingServer) Snapshot() (measure.ServerSnapshot, error) {
	snap, err := s.quicServer.Snapshot()
	snap.QUICRetries, snap.QUICRefused = s.retries.Load(), s.refused.Load()
	return snap, err
}

// TestQUICRetriesRecorded: a QUIC case whose server asks every client
// for a Retry, and refuses some, records the server's counts of both
// over its kept iterations, and a note saying what they did to its
// figures; the refused connections are the case's errors, as refused.
func TestQUICRetriesRecorded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		refuseEvery int64
		note        string
	}{
		{"retries", 0, "the server asked 32 connections to prove their address first (a QUIC Retry: a round trip more each, in the handshake times measured): "},
		{"refusals", 4, "the server asked 32 connections to prove their address first (a QUIC Retry: a round trip more each, in the handshake times measured) and refused 8 (counted as errors): "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := startRetryingServer(t, tt.refuseEvery)
			hc := s.handshakeCase(tt.name, false, false)
			hc.Server = s
			hc.MaxErrorRate = 1
			rec, err := loadgen.RunHandshakes(context.Background(), hc)
			if err != nil {
				t.Fatal(err)
			}
			attempts := int64(hc.Handshakes * hc.Iterations)
			refused := int64(0)
			if tt.refuseEvery > 0 {
				refused = attempts / tt.refuseEvery
			}
			if rec.ServerQUICRetries == nil || *rec.ServerQUICRetries != attempts || rec.ServerQUICRefused == nil || *rec.ServerQUICRefused != refused {
				t.Errorf("server_quic_retries %v, server_quic_refused %v: want %d, %d", countOf(rec.ServerQUICRetries), countOf(rec.ServerQUICRefused), attempts, refused)
			}
			if rec.Errors != refused || rec.ErrorsByKind["refused"] != refused || rec.Handshakes != attempts-refused {
				t.Errorf("%d handshakes, errors %v: want %d refused, the rest completed", rec.Handshakes, rec.ErrorsByKind, refused)
			}
			if !strings.Contains(strings.Join(rec.Notes, "\n"), tt.note+"more connections were waiting for their ClientHello, or in their handshake, or open, at once than it takes without that; lower the concurrency or the rate") {
				t.Errorf("notes %q: want %q", rec.Notes, tt.note)
			}
		})
	}
}

// countOf is *p to print, or nil.
func countOf(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
