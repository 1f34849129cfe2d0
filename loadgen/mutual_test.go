package loadgen_test

import (
	"context"
	"crypto/tls"
	"errors"
	"testing"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// mutualServer is an in-process server that requires client
// certificates from ca, and two client identities of that CA.
func mutualServer(t *testing.T) (srv *server.Server, addr string, ca *pki.CA, ids []*pki.Identity) {
	t.Helper()
	ca, sid := testpki.Identity(t)
	cfg, err := tlsconf.Server(tlsconf.ServerOptions{Certificates: []tls.Certificate{sid.TLSCertificate()}, Mutual: true, ClientCAs: ca.Pool()})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"client A", "client B"} {
		id, err := ca.IssueClient(name)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	srv = server.New(cfg)
	return srv, servertest.Start(t, srv).Addr, ca, ids
}

// TestSessionsNeverCrossIdentities reproduces the naive client cache: Go's
// LRU cache is keyed by server name only, so a client that switches
// certificate resumes the session of the previous one, and the server sees
// the old identity. tlsbench's scoped pool does not, and the case's
// identity cross-check catches the naive cache.
func TestSessionsNeverCrossIdentities(t *testing.T) {
	t.Parallel()
	srv, addr, ca, ids := mutualServer(t)
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		name := "tls" + tlsconf.VersionName(v)
		t.Run(name+"/naive", func(t *testing.T) {
			shared := tls.NewLRUClientSessionCache(16)
			var cfgs []*tls.Config
			var keys []string
			for _, id := range ids {
				cert := id.TLSCertificate()
				cfgs = append(cfgs, tlsconf.Client(tlsconf.ClientOptions{Version: v, RootCAs: ca.Pool(), ServerName: "localhost", Certificate: &cert, Sessions: shared}))
				keys = append(keys, server.IdentityKey(id.Leaf))
			}
			hc := measure.HandshakeCase{Name: name, Version: v, Resume: true, Mutual: true, Concurrency: 1, Handshakes: 8, Iterations: 2, Warmup: 1,
				Clients: cfgs, ClientIdentities: keys, Dialer: client.TCPDialer{Addr: addr}, Server: inProcess{srv}}
			_, err := loadgen.RunHandshakes(context.Background(), hc)
			var ie *measure.IdentityError
			if !errors.As(err, &ie) {
				t.Fatalf("naive shared cache: error %v, want an IdentityError", err)
			}
			// Every handshake resumed the one cached session, so the
			// server saw a single identity although two were presented.
			if len(ie.Served) != 1 || len(ie.Presented) != 2 {
				t.Errorf("server saw %v, client presented %v; want 1 identity seen of 2 presented", ie.Served, ie.Presented)
			}
		})
		t.Run(name+"/scoped", func(t *testing.T) {
			pool := tlsconf.NewSessionPool(4, tlsconf.ReuseMulti)
			var cfgs []*tls.Config
			var keys []string
			for _, id := range ids {
				cert := id.TLSCertificate()
				cfgs = append(cfgs, tlsconf.Client(tlsconf.ClientOptions{Version: v, RootCAs: ca.Pool(), ServerName: "localhost", Certificate: &cert,
					Sessions: pool.Scoped(pki.ThumbprintHex(id.Leaf))}))
				keys = append(keys, server.IdentityKey(id.Leaf))
			}
			hc := measure.HandshakeCase{Name: name, Version: v, Resume: true, Mutual: true, Concurrency: 2, Handshakes: 8, Iterations: 2, Warmup: 1,
				Clients: cfgs, ClientIdentities: keys, Dialer: client.TCPDialer{Addr: addr}, Server: inProcess{srv}}
			rec, err := loadgen.RunHandshakes(context.Background(), hc)
			if err != nil {
				t.Fatal(err)
			}
			if rec.ResumptionRate != 1 || rec.ClientIdentities != 2 {
				t.Errorf("rate %.2f identities %d, want 1 and 2", rec.ResumptionRate, rec.ClientIdentities)
			}
		})
	}
}
