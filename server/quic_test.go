package server_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"go.uber.org/goleak"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/connerr"
	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/stats"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// quicServer is a built-in server serving QUIC on loopback for a test.
type quicServer struct {
	srv  *server.Server
	addr string
	ca   *pki.CA
}

// startQUIC starts a server built from o (with a fresh test identity)
// that serves QUIC until the test ends.
func startQUIC(t *testing.T, o server.Options, opts ...server.Option) *quicServer {
	t.Helper()
	ca, _, f := testpki.ServerFiles(t)
	o.Identities = []server.IdentityFiles{{Cert: f.Cert, Key: f.Key}}
	srv, err := server.NewFromOptions(o, opts...)
	if err != nil {
		t.Fatal(err)
	}
	s := servertest.StartQUIC(t, srv)
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("ServeQUIC: %v", err)
		}
	})
	return &quicServer{srv: srv, addr: s.Addr, ca: ca}
}

// clientTLS is a client configuration for s's ping protocol.
func (s *quicServer) clientTLS(cache tls.ClientSessionCache) *tls.Config {
	return &tls.Config{RootCAs: s.ca.Pool(), ServerName: "localhost", NextProtos: []string{tlsconf.ALPNQUICPing}, ClientSessionCache: cache}
}

// pingResult is what one connection of the ping protocol saw.
type pingResult struct {
	resumed, used0RTT, rejected bool
	version                     quic.Version
}

// ping makes one connection of the ping protocol: the byte written as
// early data when the cache holds a session that allows it, read back
// to the stream's end (which carries the session ticket), then closed.
// A rejection of the early data is answered as a client must: the byte
// goes again on the connection that follows.
func ping(t *testing.T, addr string, cfg *tls.Config) pingResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The load generator's dialer: under the race detector it orders
	// quic-go's 0-RTT stream opening after the server's transport
	// parameters, which quic-go itself leaves unordered (a harmless race
	// the detector would report here).
	c, gate, err := client.DialQUIC(ctx, &client.QUICDialer{Addr: addr, EarlyData: true, Conf: &quic.Config{}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close()
	defer c.CloseWithError(0, "")
	var res pingResult
	got, err := exchange(ctx, c, gate)
	if errors.Is(err, quic.Err0RTTRejected) {
		res.rejected = true
		if c, err = c.NextConnection(ctx); err != nil {
			t.Fatal(err)
		}
		defer c.CloseWithError(0, "")
		got, err = exchange(ctx, c, gate)
	}
	if err != nil || len(got) != 1 || got[0] != 7 {
		t.Fatalf("ping: read %v, %v; want the byte 7 back", got, err)
	}
	st := c.ConnectionState()
	res.resumed, res.used0RTT, res.version = st.TLS.DidResume, st.Used0RTT, st.Version
	return res
}

func exchange(ctx context.Context, c *quic.Conn, gate *client.DialGate) ([]byte, error) {
	str, err := c.OpenStreamSync(ctx)
	if err != nil {
		gate.Sent()
		return nil, err
	}
	str.SetDeadline(time.Now().Add(30 * time.Second))
	_, err = str.Write([]byte{7})
	if err == nil {
		err = str.Close()
	}
	gate.Sent()
	if err != nil {
		return nil, err
	}
	return io.ReadAll(str)
}

// TestQUICHandshakes: a full handshake, then a resumption with early
// data under each policy, counted alike by client and server.
func TestQUICHandshakes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		policy       string
		wantAccepted bool
	}{
		{server.EarlyDataAccept, true},
		{server.EarlyDataReject, false},
		{server.EarlyDataSingleUse, true},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			t.Parallel()
			s := startQUIC(t, server.Options{EarlyDataPolicy: tc.policy})
			cfg := s.clientTLS(tls.NewLRUClientSessionCache(8))
			full := ping(t, s.addr, cfg)
			if full.resumed || full.used0RTT || full.version != quic.Version1 {
				t.Errorf("first connection %+v: want a full 1-RTT handshake over QUIC v1", full)
			}
			again := ping(t, s.addr, cfg)
			if !again.resumed || again.used0RTT != tc.wantAccepted || again.rejected == tc.wantAccepted {
				t.Errorf("second connection %+v: want resumed, early data accepted %v", again, tc.wantAccepted)
			}
			c := s.srv.Counters()
			if phases := quicPhaseCounts(t, c); phases[server.PhaseHandshake] != 2 || phases[server.PhaseKey] != 1 {
				t.Errorf("server phases %v: want 2 handshakes timed, the key manager in the full one", phases)
			}
			wantAcc, wantRej := int64(0), int64(1)
			if tc.wantAccepted {
				wantAcc, wantRej = 1, 0
			}
			// A rejection of early data ends the same handshake in
			// 1-RTT: the connection that follows is the same one.
			if c.Handshakes != 2 || c.Resumed != 1 || c.QUICVersions["v1"] != 2 ||
				c.EarlyDataOffered != 1 || c.EarlyDataAccepted != wantAcc || c.EarlyDataRejected != wantRej {
				t.Errorf("server counters %+v", c)
			}
		})
	}
}

// sameSession is a client session cache that keeps the first session it
// is given and offers it every time: a client replaying its ticket.
type sameSession struct {
	mu sync.Mutex
	cs *tls.ClientSessionState
}

func (c *sameSession) Get(string) (*tls.ClientSessionState, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cs, c.cs != nil
}

func (c *sameSession) Put(_ string, cs *tls.ClientSessionState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cs == nil {
		c.cs = cs
	}
}

// quicPhaseCounts decodes c's phase histograms into their counts.
func quicPhaseCounts(t *testing.T, c server.Counters) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for name, e := range c.Phases {
		l, err := stats.DecodeLatency(e)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = l.Count()
	}
	return out
}

// TestQUICEarlyDataReplay: a client that offers the same ticket twice
// (a replayed 0-RTT flight) has its early data accepted both times under
// accept, and only the first time under single-use and with no policy
// set, which still resume the replay; under reject never. The server's
// counts agree with what the client saw.
func TestQUICEarlyDataReplay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		policy string
		want   [2]bool // early data accepted on the first use, the replay
	}{
		{server.EarlyDataAccept, [2]bool{true, true}},
		{server.EarlyDataSingleUse, [2]bool{true, false}},
		{"", [2]bool{true, false}},
		{server.EarlyDataReject, [2]bool{false, false}},
	} {
		t.Run("policy="+tc.policy, func(t *testing.T) {
			t.Parallel()
			s := startQUIC(t, server.Options{EarlyDataPolicy: tc.policy})
			cfg := s.clientTLS(&sameSession{})
			ping(t, s.addr, cfg)
			var accepted int64
			for i, want := range tc.want {
				got := ping(t, s.addr, cfg)
				if !got.resumed || got.used0RTT != want || got.rejected == want {
					t.Errorf("use %d of the ticket: %+v, want resumed with early data accepted %v", i+1, got, want)
				}
				if want {
					accepted++
				}
			}
			c := s.srv.Counters()
			if c.Resumed != 2 || c.EarlyDataOffered != 2 || c.EarlyDataAccepted != accepted || c.EarlyDataRejected != 2-accepted {
				t.Errorf("server: resumed %d, early data offered %d, accepted %d, rejected %d; want 2, 2, %d, %d",
					c.Resumed, c.EarlyDataOffered, c.EarlyDataAccepted, c.EarlyDataRejected, accepted, 2-accepted)
			}
		})
	}
}

// TestQUICEarlyDataBadTicket: early data offered with a ticket the
// server cannot open is refused with the ticket, and the handshake is a
// full one.
func TestQUICEarlyDataBadTicket(t *testing.T) {
	t.Parallel()
	s := startQUIC(t, server.Options{})
	cache := &sameSession{}
	ping(t, s.addr, s.clientTLS(cache))
	ticket, state, err := cache.cs.ResumptionState()
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), ticket...)
	bad[len(bad)/2] ^= 0xff
	forged, err := tls.NewResumptionState(bad, state)
	if err != nil {
		t.Fatal(err)
	}
	got := ping(t, s.addr, s.clientTLS(&sameSession{cs: forged}))
	if got.resumed || got.used0RTT || !got.rejected {
		t.Errorf("a forged ticket: %+v, want a full handshake, early data rejected", got)
	}
	c := s.srv.Counters()
	if c.Handshakes != 2 || c.Resumed != 0 || c.Declined[server.DeclinedUndecryptable] != 1 || c.EarlyDataRejected != 1 || c.EarlyDataAccepted != 0 {
		t.Errorf("server counters %+v", c)
	}
}

// TestQUICFailures: handshakes that fail are counted by kind, as on TCP:
// a client that refuses the server's certificate (its alert), and one
// that offers no protocol the server speaks (the server's refusal).
func TestQUICFailures(t *testing.T) {
	t.Parallel()
	s := startQUIC(t, server.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	untrusting := &tls.Config{ServerName: "localhost", NextProtos: []string{tlsconf.ALPNQUICPing}}
	if c, err := quic.DialAddr(ctx, s.addr, untrusting, nil); err == nil {
		c.CloseWithError(0, "")
		t.Fatal("a client without the CA connected")
	}
	stranger := s.clientTLS(nil)
	stranger.NextProtos = []string{"nope"}
	if c, err := quic.DialAddr(ctx, s.addr, stranger, nil); err == nil {
		c.CloseWithError(0, "")
		t.Fatal("a client of another protocol connected")
	}
	want := map[string]int64{"alert:bad certificate": 1, connerr.Other: 1}
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		c := s.srv.Counters()
		if maps.Equal(c.Failures, want) && c.Handshakes == 0 && c.Active == 0 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("failures %v, active %d; want %v, none active", c.Failures, c.Active, want)
		}
	}
}

// TestQUICStreamLimit: a client that opens streams beyond the server's
// small limit is held back by QUIC's flow control, and the connection
// still works.
func TestQUICStreamLimit(t *testing.T) {
	t.Parallel()
	s := startQUIC(t, server.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := quic.DialAddr(ctx, s.addr, s.clientTLS(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseWithError(0, "")
	opened := 0
	for ; opened < 100; opened++ {
		str, err := c.OpenStream()
		if err != nil {
			if _, ok := errors.AsType[*quic.StreamLimitReachedError](err); !ok {
				t.Fatalf("stream %d: %v, want the stream limit", opened, err)
			}
			break
		}
		str.Write([]byte{7})
	}
	if opened == 0 || opened >= 100 {
		t.Errorf("opened %d streams, want a few at most", opened)
	}
	// The client's handshake ends before the server's; a client of the
	// ping protocol would wait for the end of its stream.
	for end := time.Now().Add(30 * time.Second); s.srv.Counters().Handshakes != 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("handshakes %d, want 1", s.srv.Counters().Handshakes)
		}
	}
}

// TestQUICHostilePeers: datagrams that are not QUIC, or not QUIC this
// server can read, change nothing; a client that stalls after its
// ClientHello is failed as a timeout no sooner than the handshake
// timeout; the server still serves, and when it stops it closes a
// connection its client keeps open, and every goroutine it started ends.
// Not parallel: goleak counts the goroutines of the whole test binary.
func TestQUICHostilePeers(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	const timeout = 500 * time.Millisecond
	ca, _, f := testpki.ServerFiles(t)
	srv, err := server.NewFromOptions(server.Options{Identities: []server.IdentityFiles{{Cert: f.Cert, Key: f.Key}},
		HandshakeTimeout: timeout, IdleTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	l, err := srv.ListenQUIC("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- srv.ServeQUIC(ctx, l) }()
	addr := l.Addr().(*net.UDPAddr)

	// Garbage first: what is not a QUIC Initial is dropped unseen; an
	// Initial the server cannot decrypt is a connection attempt that
	// fails as a stalled one does.
	sendDatagrams(t, addr, garbageDatagrams())
	waitQUICFailures(t, srv, connerr.Timeout, 1)

	flight := firstFlight(t, &tls.Config{ServerName: "localhost", NextProtos: []string{tlsconf.ALPNQUICPing}, InsecureSkipVerify: true})
	sent := time.Now()
	stalled := sendDatagrams(t, addr, flight)
	stalled.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := stalled.Read(make([]byte, 2048)); err != nil {
		t.Fatalf("no answer to a ClientHello: %v", err)
	}
	waitQUICFailures(t, srv, connerr.Timeout, 2)
	if took := time.Since(sent); took < timeout {
		t.Errorf("a stalled handshake failed after %v, before the handshake timeout %v", took, timeout)
	}

	cfg := &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", NextProtos: []string{tlsconf.ALPNQUICPing}}
	if got := ping(t, addr.String(), cfg); got.resumed {
		t.Errorf("ping after the garbage: %+v", got)
	}
	if c := srv.Counters(); c.Handshakes != 1 || c.Accepted != 3 || len(c.Failures) != 1 {
		t.Errorf("counters %+v: want 1 handshake, 3 accepted, the 2 timeouts alone", c)
	}
	kept, err := quic.DialAddr(context.Background(), addr.String(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeQUIC: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("ServeQUIC still runs 30 s after its context ended, with a connection open")
	}
	select {
	case <-kept.Context().Done():
	case <-time.After(30 * time.Second):
		t.Error("the server stopped and its client's connection is still open")
	}
	goleak.VerifyNone(t, ignore)
}

// garbageDatagrams are datagrams a hostile peer might send: empty,
// short, random, and a full-size long-header Initial of random bytes.
func garbageDatagrams() [][]byte {
	random := func(n int) []byte { b := make([]byte, n); rand.Read(b); return b }
	initial := append([]byte{0xc3, 0, 0, 0, 1, 8}, random(8)...) // Initial, QUIC v1, an 8-byte DCID
	initial = append(initial, 0, 0, 0x44, 0xc0)                  // no SCID, no token, length 1216
	initial = append(initial, random(1216)...)
	return [][]byte{{}, {0x40}, random(20), random(1200), initial, {0xc0, 0xff, 0xff, 0xff, 0xff}}
}

// sendDatagrams sends ds to addr from a new socket, which it returns.
func sendDatagrams(t *testing.T, addr *net.UDPAddr, ds [][]byte) *net.UDPConn {
	t.Helper()
	c, err := net.DialUDP("udp", nil, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	for _, d := range ds {
		if _, err := c.Write(d); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// firstFlight returns the datagrams of a QUIC client's first flight (its
// ClientHello, in one or two Initial packets), caught on a socket that
// never answers.
func firstFlight(t *testing.T, cfg *tls.Config) [][]byte {
	t.Helper()
	sink, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	ctx, cancel := context.WithCancel(context.Background())
	dialed := make(chan struct{})
	go func() {
		defer close(dialed)
		if c, err := quic.DialAddr(ctx, sink.LocalAddr().String(), cfg, nil); err == nil {
			c.CloseWithError(0, "")
		}
	}()
	defer func() { cancel(); <-dialed }()
	var out [][]byte
	for deadline := 30 * time.Second; ; deadline = 50 * time.Millisecond {
		sink.SetReadDeadline(time.Now().Add(deadline))
		b := make([]byte, 2048)
		n, err := sink.Read(b)
		if err != nil {
			break
		}
		out = append(out, b[:n])
	}
	if len(out) == 0 {
		t.Fatal("the client sent nothing")
	}
	return out
}

// waitQUICFailures waits until srv counts n failures of kind.
func waitQUICFailures(t *testing.T, srv *server.Server, kind string, n int64) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); srv.Counters().Failures[kind] < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("failures %v, want %s %d", srv.Counters().Failures, kind, n)
		}
	}
}

// TestQUICHTTP3: an HTTP/3 client gets the short answer to GET and HEAD,
// and 405 for other methods; its handshakes are counted as any other.
func TestQUICHTTP3(t *testing.T) {
	t.Parallel()
	s := startQUIC(t, server.Options{})
	tr := &http3.Transport{TLSClientConfig: &tls.Config{RootCAs: s.ca.Pool()}}
	defer tr.Close()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	for _, tc := range []struct {
		method string
		code   int
		body   string
	}{
		{http.MethodGet, 200, "tlsbench: TLS handshake complete\n"},
		{http.MethodHead, 200, ""},
		{http.MethodPost, 405, "405 Method Not Allowed\n"},
	} {
		req, _ := http.NewRequest(tc.method, "https://"+s.addr+"/", nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.method, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code || string(body) != tc.body || resp.Proto != "HTTP/3.0" {
			t.Errorf("%s: %s %d %q, want HTTP/3.0 %d %q", tc.method, resp.Proto, resp.StatusCode, body, tc.code, tc.body)
		}
	}
	if c := s.srv.Counters(); c.Handshakes != 1 || len(c.Failures) != 0 {
		t.Errorf("counters %+v: want the one connection's handshake", c)
	}
}

// TestQUICRevoked: with mutual TLS over QUIC, a revoked client
// certificate's handshake is refused and counted as revoked, a good one
// completes and is counted by identity, and the refusal is logged once
// with the certificate it was about.
func TestQUICRevoked(t *testing.T) {
	t.Parallel()
	ca, _, f := testpki.ServerFiles(t)
	good, err := ca.IssueClient("good")
	if err != nil {
		t.Fatal(err)
	}
	revoked, err := ca.IssueClient("revoked")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(revoked.Chain[0].Raw)
	list := filepath.Join(t.TempDir(), "revoked.txt")
	if err := os.WriteFile(list, []byte(hex.EncodeToString(sum[:])+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var log syncLog
	srv, err := server.NewFromOptions(server.Options{Identities: []server.IdentityFiles{{Cert: f.Cert, Key: f.Key}},
		Mutual: true, ClientCA: f.CA, RevokedFile: list}, server.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	if err != nil {
		t.Fatal(err)
	}
	l, err := srv.ListenQUIC("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.ServeQUIC(ctx, l) }()
	defer func() { cancel(); <-served }()
	cfg := func(id *pki.Identity) *tls.Config {
		return &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", NextProtos: []string{tlsconf.ALPNQUICPing},
			Certificates: []tls.Certificate{id.TLSCertificate()}}
	}
	ping(t, l.Addr().String(), cfg(good))
	dctx, dcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer dcancel()
	if c, err := quic.DialAddr(dctx, l.Addr().String(), cfg(revoked), nil); err == nil {
		if _, err := exchange(dctx, c, nil); err == nil {
			t.Error("a revoked certificate's exchange went through")
		}
		c.CloseWithError(0, "")
	}
	waitQUICFailures(t, srv, server.FailureRevoked, 1)
	c := srv.Counters()
	if c.Handshakes != 1 || c.Identities[server.IdentityKey(good.Chain[0])] != 1 || len(c.Failures) != 1 {
		t.Errorf("counters %+v: want the good client's handshake and the revoked one's failure", c)
	}
	if lines := strings.Count(log.String(), `msg="handshake rejected"`); lines != 1 || !strings.Contains(log.String(), "CN=revoked") {
		t.Errorf("log:\n%s\nwant one line for the revoked certificate", log.String())
	}
}

// syncLog is a log destination safe for the server's goroutines.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestQUICHTTP3StalledRequest: an HTTP/3 client that opens a request,
// sends one byte of it and then only keeps the connection alive (QUIC
// PINGs, which HTTP/3's idle timer does not see while a request is open)
// is cut off once the handshake's time and the idle timeout have passed,
// not held for good.
func TestQUICHTTP3StalledRequest(t *testing.T) {
	t.Parallel()
	const idle, hs = 300 * time.Millisecond, time.Second
	s := startQUIC(t, server.Options{IdleTimeout: idle, HandshakeTimeout: hs})
	cfg := &tls.Config{RootCAs: s.ca.Pool(), ServerName: "localhost", NextProtos: []string{server.ALPNHTTP3}}
	c, err := quic.DialAddr(context.Background(), s.addr, cfg, &quic.Config{KeepAlivePeriod: 100 * time.Millisecond, MaxIdleTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseWithError(0, "")
	str, err := c.OpenStream()
	if err != nil {
		t.Fatal(err)
	}
	str.Write([]byte{0x01}) // a HEADERS frame's type, and nothing more
	select {
	case <-c.Context().Done():
	case <-time.After(10 * (idle + hs)):
		t.Fatalf("the connection is still open %v later, with the idle timeout at %v", 10*(idle+hs), idle)
	}
}
