package loadgen_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/bulk"
	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// httpOrigin is the built-in server in this process on a loopback port,
// with its CA written to a file (for Squid) and the given file sources.
type httpOrigin struct {
	srv    *server.Server
	addr   string
	ca     *pki.CA
	caFile string
}

func startHTTPOrigin(t *testing.T, sources ...string) *httpOrigin {
	t.Helper()
	cfg, ca := testpki.Server(t)
	o := servertest.ServeOrigin(t, server.New(cfg, server.WithSources(sources...)), ca)
	return &httpOrigin{srv: o.Server.Server, addr: o.Addr, ca: ca, caFile: o.CAFile}
}

// httpCase is a throughput case of the HTTP request form.
func httpCase(d client.Dialer, roots *x509.CertPool, dir string) loadgen.ThroughputCase {
	return loadgen.ThroughputCase{
		Name: "tp-http", Version: tls.VersionTLS13, Cipher: ktls.CipherAES128GCM, Buffer: 16 << 10,
		Direction: dir, Bytes: 3<<20 + 1, Concurrency: 2, Iterations: 2, Warmup: 1,
		Client:  tlsconf.Client(tlsconf.ClientOptions{RootCAs: roots, ServerName: "localhost"}),
		Dialer:  d,
		Request: loadgen.ThroughputRequestHTTP,
	}
}

// squidPool is the pool of the CA Squid signs its minted certificates with.
func squidPool(t *testing.T, sq *peers.SquidProxy) *x509.CertPool {
	t.Helper()
	certs, err := pki.LoadCertsPEM(sq.CAFile())
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(certs[0])
	return pool
}

// TestThroughputHTTPThroughSquid: the HTTP request form through real
// Squid bumping TLS to the built-in server, both directions, the bytes
// checked end to end; and in Duration mode.
func TestThroughputHTTPThroughSquid(t *testing.T) {
	t.Parallel()
	o := startHTTPOrigin(t)
	sq := peers.Squid(t, peers.SquidConfig{OriginCA: o.caFile})
	d := client.ProxyDialer{Proxy: sq.Addr(), Target: o.addr}
	for _, dir := range []string{loadgen.DirectionDownload, loadgen.DirectionUpload} {
		tc := httpCase(d, squidPool(t, sq), dir)
		rec, err := loadgen.RunThroughput(t.Context(), tc)
		if err != nil {
			t.Fatalf("%s through squid: %v", dir, err)
		}
		// Two connections, two measured iterations of 3 MiB + 1 each.
		if want := float64(2 * 2 * tc.Bytes); rec.Extra["bytes"] != want || rec.Request != "http" || rec.Handshakes != 2 {
			t.Errorf("%s: bytes %v (want %v), request %q, handshakes %d", dir, rec.Extra["bytes"], want, rec.Request, rec.Handshakes)
		}
	}
	tc := httpCase(d, squidPool(t, sq), loadgen.DirectionDownload)
	tc.Bytes, tc.Duration, tc.Iterations = 0, 300*time.Millisecond, 1
	if rec, err := loadgen.RunThroughput(t.Context(), tc); err != nil || rec.Extra["bytes"] <= 0 {
		t.Fatalf("duration mode through squid: %v, %v", rec, err)
	}

	// The binary protocol does not pass a proxy that parses HTTP: the
	// error says which request form does.
	tc = httpCase(d, squidPool(t, sq), loadgen.DirectionDownload)
	tc.Request, tc.Concurrency, tc.ConnTimeout = loadgen.ThroughputRequestBulk, 1, 2*time.Second
	if _, err := loadgen.RunThroughput(t.Context(), tc); err == nil || !strings.Contains(err.Error(), "use Request http") {
		t.Errorf("the binary protocol through squid: %v, want advice to use the HTTP form", err)
	}

	// The client trusting only the origin's CA does not get through:
	// Squid, not the origin, is at the other end of the handshake.
	tc = httpCase(d, o.ca.Pool(), loadgen.DirectionDownload)
	if _, err := loadgen.RunThroughput(t.Context(), tc); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("trusting the origin's CA through squid: %v, want a certificate error", err)
	}
}

// TestThroughputHTTPSquidCorrupted: a file source that differs between
// the server and the client by one byte is caught through Squid, at that
// byte; a closed origin is Squid's 503 with its reason.
func TestThroughputHTTPSquidCorrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	content := make([]byte, 300_001)
	copy(content, bytes.Repeat([]byte("tlsbench file source "), 20000))
	serverFile, clientFile := filepath.Join(dir, "server"), filepath.Join(dir, "client")
	os.WriteFile(serverFile, content, 0o644)
	content[123_456] ^= 0x01
	os.WriteFile(clientFile, content, 0o644)
	o := startHTTPOrigin(t, serverFile)
	sq := peers.Squid(t, peers.SquidConfig{OriginCA: o.caFile})

	tc := httpCase(client.ProxyDialer{Proxy: sq.Addr(), Target: o.addr}, squidPool(t, sq), loadgen.DirectionDownload)
	tc.Source = &loadgen.FileSource{Path: clientFile, Index: 1}
	_, err := loadgen.RunThroughput(t.Context(), tc)
	var ie *bulk.IntegrityError
	if !errors.As(err, &ie) || ie.Offset != 123_456 {
		t.Fatalf("differing file through squid: %v, want an IntegrityError at byte 123456", err)
	}
	tc.Source.Path = serverFile
	if _, err := loadgen.RunThroughput(t.Context(), tc); err != nil {
		t.Fatalf("the same file through squid: %v", err)
	}

	// Squid answers CONNECT to a closed port with 200 (it bumps first)
	// and its 503 to the first request.
	closed := closedAddr(t)
	tc = httpCase(client.ProxyDialer{Proxy: sq.Addr(), Target: closed}, squidPool(t, sq), loadgen.DirectionDownload)
	_, err = loadgen.RunThroughput(t.Context(), tc)
	if err == nil || !strings.Contains(err.Error(), "answered 503") || !strings.Contains(err.Error(), "ERR_CONNECT_FAIL") {
		t.Errorf("closed origin behind squid: %v, want Squid's 503 with its reason", err)
	}
}

// TestThroughputHTTPDirect: the HTTP request form straight to the
// built-in server (no proxy): both directions byte-exact, a file source,
// and the settings it cannot run with refused as field errors.
func TestThroughputHTTPDirect(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "src")
	os.WriteFile(file, bytes.Repeat([]byte{1, 2, 3, 5, 7, 11, 13}, 100_000), 0o644)
	o := startHTTPOrigin(t, file)
	d := client.TCPDialer{Addr: o.addr}
	for _, dir := range []string{loadgen.DirectionDownload, loadgen.DirectionUpload} {
		tc := httpCase(d, o.ca.Pool(), dir)
		tc.Cipher = ktls.CipherChaCha20Poly1305 // what a Go server may prefer without AES hardware
		tc.KTLS = ktls.ModeAuto
		rec, err := loadgen.RunThroughput(t.Context(), tc)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if rec.Extra["bytes"] != float64(4*tc.Bytes) || !strings.Contains(strings.Join(rec.Notes, "\n"), "HTTP request form does not switch") {
			t.Errorf("%s: bytes %v, notes %q", dir, rec.Extra["bytes"], rec.Notes)
		}
	}
	tc := httpCase(d, o.ca.Pool(), loadgen.DirectionDownload)
	tc.Cipher = ktls.CipherChaCha20Poly1305
	tc.Source = &loadgen.FileSource{Path: file, Index: 1}
	tc.Bytes = 1 << 20 // rounded up to whole passes of 700000 bytes
	if rec, err := loadgen.RunThroughput(t.Context(), tc); err != nil || rec.Extra["bytes"] != 2*2*2*700_000 {
		t.Fatalf("file source: %v, %v", rec, err)
	}
	tc.Source.Index = 2
	if _, err := loadgen.RunThroughput(t.Context(), tc); err == nil || !strings.Contains(err.Error(), "answered 404") {
		t.Errorf("a source the server lacks: %v", err)
	}

	for _, bad := range []struct {
		mutate func(*loadgen.ThroughputCase)
		field  string
	}{
		{func(tc *loadgen.ThroughputCase) { tc.Direction = loadgen.DirectionBoth }, "Direction"},
		{func(tc *loadgen.ThroughputCase) { tc.KTLS = ktls.ModeOn }, "KTLS"},
		{func(tc *loadgen.ThroughputCase) { tc.Request = "grpc" }, "Request"},
	} {
		tc := httpCase(d, o.ca.Pool(), loadgen.DirectionDownload)
		bad.mutate(&tc)
		_, err := loadgen.RunThroughput(t.Context(), tc)
		var fe *field.Error
		if !errors.As(err, &fe) || fe.Field != bad.field {
			t.Errorf("%s: %v, want a field error naming it", bad.field, err)
		}
	}
}

// TestThroughputHTTPAgainstBulkOnlyServer: a server that does not answer
// the HTTP form (the binary protocol's fake server) fails the case with
// a clear error, not a hang.
func TestThroughputHTTPAgainstBulkOnlyServer(t *testing.T) {
	t.Parallel()
	addr, cfg := fakeBulkServer(t, func(*tls.Conn, bulk.Round) {})
	tc := httpCase(client.TCPDialer{Addr: addr}, nil, loadgen.DirectionDownload)
	tc.Client, tc.Cipher, tc.ConnTimeout = cfg, ktls.CipherChaCha20Poly1305, 3*time.Second
	_, err := loadgen.RunThroughput(t.Context(), tc)
	if err == nil || !strings.Contains(err.Error(), "the connection ended before an answer") {
		t.Fatalf("a server without the HTTP form: %v", err)
	}
}
