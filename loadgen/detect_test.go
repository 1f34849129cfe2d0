package loadgen_test

import (
	"context"
	"crypto/tls"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// TestDetectSilentServer: a TLS server that answers no request gets
// RequestWait when it sends TLS 1.3 tickets (and RequestNone when it
// sends none), and the exchange found resumes every resumed handshake
// without waiting out the wait's limit, whether the tickets come with
// the server's last handshake flight (Go's server without client
// certificates) or after the client's Finished (Go's server asking for
// one, as OpenSSL does always).
func TestDetectSilentServer(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		configure func(*tls.Config)
		want      client.Request
		tickets   string
	}{
		{"tickets with the handshake", func(*tls.Config) {}, client.RequestWait, "it sent 1 TLS 1.3 session ticket(s) unasked"},
		{"tickets after the client's Finished", func(c *tls.Config) { c.ClientAuth = tls.RequestClientCert }, client.RequestWait, "it sent 1 TLS 1.3 session ticket(s) unasked"},
		{"no tickets", func(c *tls.Config) { c.SessionTicketsDisabled = true }, client.RequestNone, "no TLS 1.3 session ticket came either"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, ca := testpki.Server(t)
			tt.configure(cfg)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			// Handshake, then read whatever comes and answer nothing.
			servertest.ServeEach(t, ln, func(c net.Conn, done <-chan struct{}) {
				tc := tls.Server(c, cfg)
				buf := make([]byte, 1024)
				for {
					if _, err := tc.Read(buf); err != nil {
						return
					}
				}
			})
			dialer := client.TCPDialer{Addr: ln.Addr().String()}
			clientCfg := tlsconf.Client(tlsconf.ClientOptions{Version: tls.VersionTLS13, RootCAs: ca.Pool(), ServerName: "localhost"})
			d := client.DetectRequest(context.Background(), client.DetectOptions{
				Dialer: dialer, Config: clientCfg, Host: "localhost", Wait: 200 * time.Millisecond})
			if d.Request != tt.want || d.Err != nil || !strings.Contains(d.String(), "HEAD / got no answer in 200ms; GET / got no answer in 200ms; "+tt.tickets) {
				t.Fatalf("detection %v (%v): want %s, after HEAD and GET went unanswered", d, d.Err, tt.want)
			}
			if tt.want != client.RequestWait {
				return
			}
			hc := measure.HandshakeCase{
				Name: "silent/" + tt.name, Version: tls.VersionTLS13, Resume: true, Concurrency: 2,
				Handshakes: 16, Iterations: 2, Warmup: 1, Dialer: dialer, Exchange: d.Exchange("localhost"),
				Clients: []*tls.Config{tlsconf.Client(tlsconf.ClientOptions{Version: tls.VersionTLS13, RootCAs: ca.Pool(),
					ServerName: "localhost", Sessions: tlsconf.NewSessionPool(2, tlsconf.ReuseMulti).Scoped("")})},
			}
			began := time.Now()
			rec, err := loadgen.RunHandshakes(context.Background(), hc)
			took := time.Since(began)
			if err != nil || rec.ResumptionRate != 1 {
				t.Fatalf("error %v, resumption %v: want every handshake resumed", err, rec)
			}
			// 48 connections, 2 at a time: waiting out 500 ms each
			// would take 12 s.
			if took > 4*time.Second {
				t.Errorf("the case took %v: the exchange waits for tickets it has", took.Round(time.Millisecond))
			}
		})
	}
}
