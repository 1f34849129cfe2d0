package server_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/connerr"
	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/internal/usage"
	"github.com/tlsbench/tlsbench/server"
)

// keyedServer starts a built-in server whose identity the key manager
// holds (which is what records the ClientHello) on loopback, logging to
// log; it stops when the test ends.
func keyedServer(t *testing.T, log io.Writer) (*server.Server, string, *tls.Config) {
	t.Helper()
	ca, _, f := testpki.ServerFiles(t)
	srv, addr := startKeyed(t, log, server.Options{Identities: []server.IdentityFiles{{Cert: f.Cert, Key: f.Key}}})
	return srv, addr, &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"}
}

// startKeyed starts a built-in server with o as keyedServer does.
func startKeyed(t *testing.T, log io.Writer, o server.Options) (*server.Server, string) {
	t.Helper()
	srv, err := server.NewFromOptions(o,
		server.WithLogger(slog.New(slog.NewTextHandler(log, nil))), server.WithHandshakeTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := server.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return srv, servertest.Serve(t, srv, ln).Addr
}

// clientHello is the ClientHello message a crypto/tls client with cfg
// sends, read off an in-memory pipe (across records when it needs more
// than one).
func clientHello(t *testing.T, cfg *tls.Config) []byte {
	t.Helper()
	c, s := net.Pipe()
	defer s.Close()
	go tls.Client(c, cfg).Handshake()
	s.SetDeadline(time.Now().Add(30 * time.Second))
	var msg []byte
	for len(msg) < 4 || len(msg) < 4+(int(msg[1])<<16|int(msg[2])<<8|int(msg[3])) {
		hdr := make([]byte, 5)
		if _, err := io.ReadFull(s, hdr); err != nil {
			t.Fatal(err)
		}
		frag := make([]byte, int(hdr[3])<<8|int(hdr[4]))
		if _, err := io.ReadFull(s, frag); err != nil {
			t.Fatal(err)
		}
		msg = append(msg, frag...)
	}
	return msg
}

// asRecords frames a handshake message as handshake records of frag
// bytes each.
func asRecords(msg []byte, frag int) []byte {
	var out []byte
	for ; len(msg) > 0; msg = msg[min(frag, len(msg)):] {
		n := min(frag, len(msg))
		out = append(out, 22, 3, 1, byte(n>>8), byte(n))
		out = append(out, msg[:n]...)
	}
	return out
}

// sendRefused sends stream to addr and reports how the server answered:
// nil when it closed the connection without a byte, else why not.
func sendRefused(addr string, stream []byte) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	return refusedOn(c, stream)
}

// refusedOn sends stream on c and reports as sendRefused does.
func refusedOn(c net.Conn, stream []byte) error {
	go c.Write(stream) // fails once the server has closed
	n, err := c.Read(make([]byte, 1))
	switch kind := connerr.Kind(err); {
	case n > 0:
		return errors.New("the server answered")
	case kind == connerr.EOF || kind == connerr.Reset:
		return nil
	default:
		return err
	}
}

// TestFragmentedClientHelloRefused: a real ClientHello sent as 1-byte
// records is refused at once (the connection closed without an answer,
// counted as fragmented-hello, one warning logged each), also with record
// versions crypto/tls takes before the ClientHello although they are not
// 3.x, and behind warning alerts, which crypto/tls drops; while real
// clients' ClientHellos still work, a 50 KB one in four full records
// included.
func TestFragmentedClientHelloRefused(t *testing.T) {
	t.Parallel()
	var log syncLog
	srv, addr, cfg := keyedServer(t, &log)
	hello := clientHello(t, cfg)
	alert := []byte{21, 3, 1, 0, 2, 1, 100} // warning: no_renegotiation
	streams := []struct {
		name   string
		stream []byte
	}{
		{"1-byte records", asRecords(hello, 1)},
		{"1-byte records of version 0.0", withVersion(asRecords(hello, 1), 0, 0)},
		{"1-byte records of version 2.0", withVersion(asRecords(hello, 1), 2, 0)},
		{"a warning alert, then 1-byte records", append(alert, asRecords(hello, 1)...)},
		{"16 warning alerts after each 64-byte record", afterEach(asRecords(hello, 64), bytes.Repeat(alert, 16))},
	}
	for i, tt := range streams {
		if err := sendRefused(addr, tt.stream); err != nil {
			t.Fatalf("a ClientHello in %s: %v; want the connection closed", tt.name, err)
		}
		waitFailures(t, srv, server.FailureFragmentedHello, int64(i+1))
	}
	if lines := strings.Count(log.String(), `msg="handshake rejected"`); lines != len(streams) || strings.Count(log.String(), "kind="+server.FailureFragmentedHello) != len(streams) {
		t.Errorf("log:\n%s\nwant %d rejection lines of kind %s", log.String(), len(streams), server.FailureFragmentedHello)
	}
	big := cfg.Clone()
	big.NextProtos = bloatedALPN()
	for _, c := range []*tls.Config{cfg, big} {
		conn, err := tls.Dial("tcp", addr, c)
		if err != nil {
			t.Fatalf("a crypto/tls client (%d ALPN protocols): %v", len(c.NextProtos), err)
		}
		conn.Close()
	}
}

// withVersion sets the record version of every record in stream.
func withVersion(stream []byte, major, minor byte) []byte {
	out := bytes.Clone(stream)
	for i := 0; i+5 <= len(out); i += 5 + (int(out[i+3])<<8 | int(out[i+4])) {
		out[i+1], out[i+2] = major, minor
	}
	return out
}

// afterEach puts extra after each record of stream.
func afterEach(stream, extra []byte) []byte {
	var out []byte
	for len(stream) >= 5 {
		n := min(len(stream), 5+(int(stream[3])<<8|int(stream[4])))
		out = append(append(out, stream[:n]...), extra...)
		stream = stream[n:]
	}
	return out
}

// bloatedALPN makes a crypto/tls ClientHello of about 50 KB, which it
// sends in four records.
func bloatedALPN() []string {
	protos := make([]string, 200)
	for i := range protos {
		protos[i] = strings.Repeat(string(rune('a'+i%26)), 249) + string(rune('a'+i/26))
	}
	return protos
}

// TestFragmentedClientHelloCPU: refusing ClientHellos sent as 1-byte
// records costs the server little CPU. Eight connections each send a
// real 50 KB ClientHello so; reassembling it again on every read cost
// seconds of CPU each (until the handshake timeout). The bound is this
// process's CPU time, both ends, so the test does not run in parallel
// with others (CPU time, unlike wall time, is not inflated by other
// processes on the machine). It still counts the garbage collector and
// what other tests' goroutines finish meanwhile, so the bound is a
// generous 500ms (1.5s under the race detector): refusing takes about
// 15ms, reassembling on every read took 1.7s without the race detector,
// and the garbage of building the streams is collected before the count
// begins.
func TestFragmentedClientHelloCPU(t *testing.T) {
	var log syncLog
	srv, addr, cfg := keyedServer(t, &log)
	big := cfg.Clone()
	big.NextProtos = bloatedALPN()
	const conns = 8
	streams := make([][]byte, conns)
	for i := range streams {
		msg := clientHello(t, big)
		if len(msg) < 50000 {
			t.Fatalf("the bloated ClientHello has %d bytes, want 50 KB", len(msg))
		}
		streams[i] = asRecords(msg, 1)
	}
	limit := 500 * time.Millisecond
	if raceDetector {
		limit = 1500 * time.Millisecond
	}
	runtime.GC()
	before := usage.SelfCPU()
	errs := make(chan error, conns)
	for _, s := range streams {
		go func() { errs <- sendRefused(addr, s) }()
	}
	for range conns {
		if err := <-errs; err != nil {
			t.Errorf("a 50 KB ClientHello in 1-byte records: %v; want the connection closed", err)
		}
	}
	// Refusing them takes milliseconds; reassembling them took seconds.
	used := usage.SelfCPU() - before
	t.Logf("refusing took %v of CPU", used)
	if used > limit {
		t.Errorf("refusing %d fragmented ClientHellos took %v of CPU, want under %v", conns, used, limit)
	}
	waitFailures(t, srv, server.FailureFragmentedHello, conns)
}

// TestUnwatchedRecordsRefusedByTLS: the records the ClientHello recorder
// stops watching at are ones crypto/tls refuses before the ClientHello
// itself, so that a ClientHello in 1-byte records behind one gets no
// ServerHello either; the record versions and warning alerts it reads
// through are ones crypto/tls takes, and a ClientHello in one record
// behind them is answered.
func TestUnwatchedRecordsRefusedByTLS(t *testing.T) {
	t.Parallel()
	var log syncLog
	_, addr, cfg := keyedServer(t, &log)
	hello := clientHello(t, cfg)
	tests := []struct {
		name   string
		first  []byte
		frag   int
		answer bool
	}{
		{"change_cipher_spec", []byte{20, 3, 1, 0, 1, 1}, 1, false},
		{"application_data", []byte{23, 3, 1, 0, 1, 0}, 1, false},
		{"SSLv2 header", []byte{0x80, 3, 1, 0, 1, 0}, 1, false},
		{"version 16.0", withVersion(asRecords(hello[:1], 1), 16, 0), 1, false},
		{"alert of 16385 bytes", append([]byte{21, 3, 1, 0x40, 1}, make([]byte, 1<<14+1)...), 1, false},
		{"warning alert", []byte{21, 3, 1, 0, 2, 1, 100}, 1 << 14, true},
		{"version 0.0", withVersion(asRecords(hello[:1], 1), 0, 0), 1 << 14, true},
		{"version 15.255", withVersion(asRecords(hello[:1], 1), 15, 255), 1 << 14, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rest := hello
			if tt.first[0] == 22 { // the record carries the hello's first byte
				rest = hello[1:]
			}
			if got := serverHelloFor(t, addr, append(bytes.Clone(tt.first), asRecords(rest, tt.frag)...)); got != tt.answer {
				t.Errorf("a ServerHello: %v, want %v", got, tt.answer)
			}
		})
	}
}

// serverHelloFor sends stream to addr and says whether the server
// answered with a handshake record.
func serverHelloFor(t *testing.T, addr string, stream []byte) bool {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	go c.Write(stream)
	b := make([]byte, 1)
	n, err := c.Read(b)
	if n == 0 && connerr.Kind(err) != connerr.EOF && connerr.Kind(err) != connerr.Reset {
		t.Fatalf("reading the answer: %v", err)
	}
	return n == 1 && b[0] == 22
}

// TestFragmentedHandshakeRecordsRefused: the record budget covers all the
// client's plaintext handshake records, since crypto/tls reads all of
// them without decrypting: a first message of another type (which it
// reads whole, up to 64 KiB, before it looks at the type), a ClientHello
// of the largest sizes crypto/tls takes, a second ClientHello after a
// HelloRetryRequest (also behind the change_cipher_spec record clients
// send before it), and a TLS 1.2 client's second flight. Each, sent as
// 1-byte records, is refused at once: closed without an answer and
// counted as fragmented-hello.
func TestFragmentedHandshakeRecordsRefused(t *testing.T) {
	t.Parallel()
	var log syncLog
	srv, addr, cfg := keyedServer(t, &log)
	hrr := hrrHello(t, cfg)
	tls12 := cfg.Clone()
	tls12.MaxVersion = tls.VersionTLS12
	ccs := []byte{20, 3, 3, 0, 1, 1}
	// The HelloRetryRequest is a ServerHello with this random (RFC 8446
	// section 4.1.3), and the dummy change_cipher_spec follows it.
	hrrRandom := []byte{0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91}
	isCCS := func(rec []byte) bool {
		if rec[0] == 22 && !bytes.Contains(rec, hrrRandom) {
			t.Error("the server answered the first ClientHello without a HelloRetryRequest")
		}
		return rec[0] == 20
	}
	helloDone := func(rec []byte) bool { return rec[0] == 22 && bytes.HasSuffix(rec, []byte{14, 0, 0, 0}) }
	tests := []struct {
		name   string
		first  []byte            // sent before stream, nil for none
		last   func([]byte) bool // the server's last record in answer to first
		stream []byte
	}{
		{"a first message of type 2", nil, nil, asRecords(handshakeMessage(2, 1<<16), 1)},
		{"a ClientHello of 65,533 bytes", nil, nil, asRecords(handshakeMessage(1, 65533), 1)},
		{"a ClientHello of 65,536 bytes", nil, nil, asRecords(handshakeMessage(1, 1<<16), 1)},
		{"a second ClientHello after a HelloRetryRequest", asRecords(hrr, 1<<14), isCCS,
			withVersion(asRecords(handshakeMessage(1, 65532), 1), 3, 3)},
		{"a change_cipher_spec, then a second ClientHello", asRecords(hrr, 1<<14), isCCS,
			append(bytes.Clone(ccs), withVersion(asRecords(handshakeMessage(1, 65532), 1), 3, 3)...)},
		{"a TLS 1.2 ClientKeyExchange", asRecords(clientHello(t, tls12), 1<<14), helloDone,
			withVersion(asRecords(handshakeMessage(16, 65532), 1), 3, 3)},
	}
	for i, tt := range tests {
		if err := refusedAfter(addr, tt.first, tt.last, tt.stream); err != nil {
			t.Fatalf("%s in 1-byte records: %v; want the connection closed", tt.name, err)
		}
		waitFailures(t, srv, server.FailureFragmentedHello, int64(i+1))
	}
}

// hrrHello is the ClientHello of a TLS 1.3 crypto/tls client offering
// X25519 only, with its key share's group changed to X448, which
// crypto/tls's server does not support: the server answers it with a
// HelloRetryRequest for X25519.
func hrrHello(t *testing.T, cfg *tls.Config) []byte {
	t.Helper()
	c := cfg.Clone()
	c.MinVersion = tls.VersionTLS13
	c.CurvePreferences = []tls.CurveID{tls.X25519}
	msg := clientHello(t, c)
	// key_share (51), its length, client_shares' length, X25519 (29) and
	// a 32-byte key.
	i := bytes.Index(msg, []byte{0, 29, 0, 32})
	if i < 6 || msg[i-6] != 0 || msg[i-5] != 51 {
		t.Fatal("no X25519 key share in the ClientHello")
	}
	msg[i+1] = 30 // X448
	return msg
}

// handshakeMessage is a handshake message of type typ with a body of n
// zero bytes.
func handshakeMessage(typ byte, n int) []byte {
	return append([]byte{typ, byte(n >> 16), byte(n >> 8), byte(n)}, make([]byte, n)...)
}

// refusedAfter sends first to addr (when not nil), reads the server's
// records up to the one last picks, then sends stream and reports as
// sendRefused does.
func refusedAfter(addr string, first []byte, last func([]byte) bool, stream []byte) error {
	if first == nil {
		return sendRefused(addr, stream)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write(first); err != nil {
		return err
	}
	for {
		hdr := make([]byte, 5)
		if _, err := io.ReadFull(c, hdr); err != nil {
			return fmt.Errorf("reading the server's answer to the ClientHello: %w", err)
		}
		rec := append(hdr, make([]byte, int(hdr[3])<<8|int(hdr[4]))...)
		if _, err := io.ReadFull(c, rec[5:]); err != nil {
			return fmt.Errorf("reading the server's answer to the ClientHello: %w", err)
		}
		if last(rec) {
			return refusedOn(c, stream)
		}
	}
}

// TestHandshakesThroughRecorder: real clients' handshakes whose plaintext
// records go on after the ClientHello (TLS 1.2 with client certificates,
// TLS 1.3 and 1.2 resumptions) still pass the record budget and carry
// data after it; keys.TestRecorderPassesHandshakes covers a
// HelloRetryRequest, which a crypto/tls client cannot make this server
// send.
func TestHandshakesThroughRecorder(t *testing.T) {
	t.Parallel()
	ca, _, f := testpki.ServerFiles(t)
	client, err := ca.IssueClient("client")
	if err != nil {
		t.Fatal(err)
	}
	var log syncLog
	srv, addr := startKeyed(t, &log, server.Options{Identities: []server.IdentityFiles{{Cert: f.Cert, Key: f.Key}},
		Mutual: true, ClientCA: f.CA})
	for _, version := range []uint16{tls.VersionTLS13, tls.VersionTLS12} {
		cfg := &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", Certificates: []tls.Certificate{client.TLSCertificate()},
			MinVersion: version, MaxVersion: version, ClientSessionCache: tls.NewLRUClientSessionCache(1)}
		for _, resume := range []bool{false, true} {
			if st := echoOnce(t, addr, cfg); st.DidResume != resume || len(st.PeerCertificates) == 0 {
				t.Errorf("TLS %x: resumed %v, want %v", version, st.DidResume, resume)
			}
		}
	}
	if n := srv.Counters().Failures[server.FailureFragmentedHello]; n != 0 {
		t.Errorf("%d handshakes refused as fragmented; log:\n%s", n, log.String())
	}
}

// echoOnce handshakes with the echo server at addr, sends a line and reads
// it back.
func echoOnce(t *testing.T, addr string, cfg *tls.Config) tls.ConnectionState {
	t.Helper()
	c, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	line := []byte("ping\n")
	got := make([]byte, len(line))
	if _, err := c.Write(line); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, line) {
		t.Fatalf("echo: %q, %v", got, err)
	}
	return c.ConnectionState()
}
