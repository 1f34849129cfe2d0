package server_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/connerr"
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
	srv, err := server.NewFromOptions(server.Options{Identities: []server.IdentityFiles{{Cert: f.Cert, Key: f.Key}}},
		server.WithLogger(slog.New(slog.NewTextHandler(log, nil))), server.WithHandshakeTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := server.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-served })
	return srv, ln.Addr().String(), &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"}
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
// counted as fragmented-hello, one warning logged), while real clients'
// ClientHellos still work, a 50 KB one in four full records included.
func TestFragmentedClientHelloRefused(t *testing.T) {
	t.Parallel()
	var log syncLog
	srv, addr, cfg := keyedServer(t, &log)
	if err := sendRefused(addr, asRecords(clientHello(t, cfg), 1)); err != nil {
		t.Fatalf("a ClientHello in 1-byte records: %v; want the connection closed", err)
	}
	waitFailures(t, srv, server.FailureFragmentedHello, 1)
	if lines := strings.Count(log.String(), `msg="handshake rejected"`); lines != 1 || !strings.Contains(log.String(), "kind="+server.FailureFragmentedHello) {
		t.Errorf("log:\n%s\nwant one rejection line of kind %s", log.String(), server.FailureFragmentedHello)
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
// processes on the machine).
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
	if used := usage.SelfCPU() - before; used > 250*time.Millisecond {
		t.Errorf("refusing %d fragmented ClientHellos took %v of CPU, want under 250ms", conns, used)
	}
	waitFailures(t, srv, server.FailureFragmentedHello, conns)
}
