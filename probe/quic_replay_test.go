package probe_test

import (
	"context"
	"crypto/tls"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/tlsbench/tlsbench/probe"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// truthServer is a QUIC server of tlsbench's ping protocol that knows
// what a replay did to it: it counts the connections that answered a
// ping read as early data (before their handshake completed) and never
// completed their handshake. Only a replayed flight is such a
// connection: its sender cannot send the Finished. With singleUse it
// refuses early data on a ticket's second use, as the built-in server's
// single-use policy does.
type truthServer struct {
	addr string
	mu   sync.Mutex
	// replayed: connections that answered early data and never
	// completed their handshake; incomplete: those that never completed
	// it, whatever they answered; active: those not ended yet.
	replayed, incomplete, active int
}

func startTruthServer(t *testing.T, p *testPKI, singleUse bool) *truthServer {
	t.Helper()
	cert := p.Server.TLSCertificate()
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{tlsconf.ALPNQUICPing}, MinVersion: tls.VersionTLS13}
	if singleUse {
		var seen sync.Map
		cfg.UnwrapSession = func(identity []byte, cs tls.ConnectionState) (*tls.SessionState, error) {
			ss, err := cfg.DecryptTicket(identity, cs)
			if ss != nil {
				if _, used := seen.LoadOrStore(string(identity), true); used {
					ss.EarlyData = false
				}
			}
			return ss, err
		}
	}
	ln, err := quic.ListenAddrEarly("127.0.0.1:0", cfg, &quic.Config{Allow0RTT: true, HandshakeIdleTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s := &truthServer{addr: ln.Addr().String()}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			c, err := ln.Accept(ctx)
			if err != nil {
				return
			}
			s.mu.Lock()
			s.active++
			s.mu.Unlock()
			go s.serve(ctx, c)
		}
	}()
	t.Cleanup(func() {
		cancel()
		ln.Close()
		s.wait(t)
	})
	return s
}

// serve echoes one byte, then waits for the handshake and the client.
func (s *truthServer) serve(ctx context.Context, c *quic.Conn) {
	defer func() {
		s.mu.Lock()
		s.active--
		s.mu.Unlock()
	}()
	defer c.CloseWithError(0, "")
	early := false
	str, err := c.AcceptStream(ctx)
	if err == nil {
		var b [1]byte
		if _, err := io.ReadFull(str, b[:]); err == nil {
			select {
			case <-c.HandshakeComplete():
			default:
				early = true
			}
			str.Write(b[:])
		}
	}
	select {
	case <-c.HandshakeComplete():
		if str != nil {
			str.Close() // after the handshake: its ticket is sent
		}
		<-c.Context().Done()
		return
	case <-c.Context().Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.incomplete++
	if early {
		s.replayed++
	}
}

// wait waits until every connection has ended.
func (s *truthServer) wait(t *testing.T) {
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		s.mu.Lock()
		active := s.active
		s.mu.Unlock()
		if active == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of the server's connections did not end", active)
		}
	}
}

// counts returns the counts once every connection has ended.
func (s *truthServer) counts(t *testing.T) (replayed, incomplete int) {
	s.wait(t)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.replayed, s.incomplete
}

// TestQUICReplayTruth checks the replay test's reading of the server's
// answer against what the server really did: its early-data policy
// (quic-go's own checks plus, for single-use, a refusal on a ticket's
// second use) and its own record of a ping it answered on a connection
// that never completed its handshake.
func TestQUICReplayTruth(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		singleUse bool
		want      probe.Status
	}{
		{"accept", false, probe.Yes},
		{"single-use", true, probe.No},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newPKI(t)
			s := startTruthServer(t, p, tt.singleUse)
			o := quicOptions(p, s.addr)
			o.Request = probe.RequestPing
			rep := runProbe(t, o)
			if f := rep.QUIC.EarlyData; f.Status != probe.Yes {
				t.Fatalf("early data %s: %s", f.Status, f.Detail)
			}
			replay := rep.QUIC.Replay
			replayed, incomplete := s.counts(t)
			if incomplete < 1 {
				t.Fatalf("no connection left its handshake incomplete: the replay never reached the server")
			}
			if got := replayed > 0; got != (tt.want == probe.Yes) || replay.Status != tt.want {
				t.Errorf("the server answered a replayed ping: %v; the probe says %s: %s", got, replay.Status, replay.Detail)
			}
		})
	}
}
