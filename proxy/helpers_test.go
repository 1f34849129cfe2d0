package proxy_test

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/proxy"
	"github.com/tlsbench/tlsbench/server"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	testchild.RunIfChild()
	goleak.VerifyTestMain(m)
}

// origin is a TLS server on loopback: the built-in echo server.
type origin struct {
	addr   string
	port   int
	caFile string
	ca     *pki.CA
}

func startOrigin(t *testing.T) origin {
	t.Helper()
	cfg, ca := testpki.Server(t)
	return serveOrigin(t, server.New(cfg), ca)
}

func serveOrigin(t *testing.T, srv *server.Server, ca *pki.CA) origin {
	t.Helper()
	o := servertest.ServeOrigin(t, srv, ca)
	return origin{addr: o.Addr, port: o.Port, ca: ca, caFile: o.CAFile}
}

// running is a proxy serving on loopback, with what it logs.
type running struct {
	*proxy.Proxy
	addr string
	log  *syncBuf
	pool *x509.CertPool // trusts the proxy's CA
	stop func()         // stops the proxy and waits for Serve to return
}

// startProxy starts a proxy for the origin with o's settings plus the
// origin's port and CA, and a fresh PKI directory.
func startProxy(t testing.TB, org origin, o proxy.Options, opts ...proxy.Option) *running {
	t.Helper()
	if o.ConnectPorts == nil {
		o.ConnectPorts = []int{org.port}
	}
	if o.OriginCA == "" && !o.OriginInsecure {
		o.OriginCA = org.caFile
	}
	if o.CACert == "" && o.PKIDir == "" {
		o.PKIDir = t.TempDir()
	}
	log := &syncBuf{}
	opts = append([]proxy.Option{proxy.WithLogger(slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})))}, opts...)
	p, err := proxy.New(o, opts...)
	if err != nil {
		t.Fatal(err)
	}
	sp := servertest.StartProxy(t, p)
	certs, err := pki.LoadCertsPEM(p.CAFile())
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(certs[0])
	return &running{Proxy: p, addr: sp.Addr, log: log, pool: pool, stop: func() { sp.Stop() }}
}

// connect sends CONNECT target and returns the connection and the
// answer's head.
func connect(t testing.TB, proxyAddr, target string) (net.Conn, *http.Response) {
	t.Helper()
	c, err := net.Dial("tcp", proxyAddr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(30 * time.Second))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "CONNECT"})
	if err != nil {
		t.Fatalf("CONNECT %s: %v", target, err)
	}
	return c, resp
}

// tunnel opens a TLS connection through the proxy to the origin.
func (r *running) tunnel(t testing.TB, org origin, cfg *tls.Config) *tls.Conn {
	t.Helper()
	c, resp := connect(t, r.addr, "localhost:"+strconv.Itoa(org.port))
	if resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %s (%s)", resp.Status, resp.Header.Get(proxy.ErrorHeader))
	}
	if cfg == nil {
		cfg = &tls.Config{}
	}
	cfg.RootCAs, cfg.ServerName = r.pool, "localhost"
	tc := tls.Client(c, cfg)
	if err := tc.Handshake(); err != nil {
		t.Fatalf("handshake through the proxy: %v", err)
	}
	return tc
}

// waitFor polls cond until it holds (the proxy counts after the client
// sees its side end).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// syncBuf is a log buffer safe for concurrent writers.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var _ = io.EOF
var _ = os.Getpid

// writeCAFiles writes the origin's CA certificate and key.
func writeCAFiles(t *testing.T, org origin, cert, key string) {
	t.Helper()
	if err := pki.WriteCertsPEM(cert, org.ca.Cert); err != nil {
		t.Fatal(err)
	}
	if err := pki.WriteKeyPEM(key, org.ca.Key); err != nil {
		t.Fatal(err)
	}
}

// writeIdentity writes id's chain and key.
func writeIdentity(t *testing.T, id *pki.Identity, cert, key string) {
	t.Helper()
	if err := pki.WriteCertsPEM(cert, id.Chain...); err != nil {
		t.Fatal(err)
	}
	if err := pki.WriteKeyPEM(key, id.Key); err != nil {
		t.Fatal(err)
	}
}

// echo writes data through the echo origin and checks it comes back.
func echo(t *testing.T, c io.ReadWriter, data []byte) {
	t.Helper()
	werr := make(chan error, 1)
	go func() { _, err := c.Write(data); werr <- err }()
	got := make([]byte, len(data))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if err := <-werr; err != nil {
		t.Fatal(err)
	}
	if string(got) != string(data) {
		t.Fatal("echo differs from what was sent")
	}
}
