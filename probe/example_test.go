package probe_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"log"
	"net"
	"os"
	"path/filepath"

	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/probe"
	"github.com/tlsbench/tlsbench/server"
)

// Probe tlsbench's own server for TLS 1.3: it accepts the version, sends
// one ticket per connection valid for 7 days, and resumes with it.
func ExampleRun() {
	ca, _ := pki.NewCA()
	id, _ := ca.IssueServer(nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	srv := server.New(&tls.Config{Certificates: []tls.Certificate{id.TLSCertificate()}})
	go srv.Serve(ctx, ln)

	rep, err := probe.Run(ctx, probe.Options{
		Addr:        ln.Addr().String(),
		ServerName:  "localhost",
		RootCAs:     ca.Pool(),
		Request:     probe.RequestPing, // the built-in server echoes
		Versions:    []uint16{tls.VersionTLS13},
		Concurrency: -1, // no load test
	})
	if err != nil {
		log.Fatal(err)
	}
	v := rep.Lookup("1.3")
	fmt.Println("accepted:", v.Accepted.Status)
	fmt.Println("PSK resumption:", v.Resumption.Status)
	fmt.Println("tickets per connection:", v.Tickets.PerConnection, "lifetime (s):", v.Tickets.LifetimeSeconds)
	fmt.Println("ticket reusable:", v.TicketReuse.Status)
	// Output:
	// accepted: yes
	// PSK resumption: yes
	// tickets per connection: 1 lifetime (s): [604800]
	// ticket reusable: yes
}

// Probe tlsbench's own server over QUIC, its early-data policy
// single-use: early data is accepted on a ticket's first use only, and a
// replayed 0-RTT flight is rejected.
func ExampleRun_quic() {
	ca, _ := pki.NewCA()
	id, _ := ca.IssueServer(nil)
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := pki.WriteCertsPEM(cert, id.Chain...); err != nil {
		log.Fatal(err)
	}
	if err := pki.WriteKeyPEM(key, id.Key); err != nil {
		log.Fatal(err)
	}
	srv, err := server.NewFromOptions(server.Options{
		Identities:      []server.IdentityFiles{{Cert: cert, Key: key}},
		EarlyDataPolicy: server.EarlyDataSingleUse,
	})
	if err != nil {
		log.Fatal(err)
	}
	l, err := srv.ListenQUIC("127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go srv.ServeQUIC(ctx, l)

	rep, err := probe.Run(ctx, probe.Options{
		Addr:       l.Addr().String(),
		ServerName: "localhost",
		RootCAs:    ca.Pool(),
		QUIC:       true,
	})
	if err != nil {
		log.Fatal(err)
	}
	q := rep.QUIC
	fmt.Println("ALPN:", q.ALPN)
	fmt.Println("tickets allow early data:", q.Tickets.MaxEarlyData.Status)
	fmt.Println("0-RTT accepted:", q.EarlyData.Status)
	fmt.Println("0-RTT on a reused ticket:", q.EarlyDataReuse.Status)
	fmt.Println("replayed 0-RTT accepted:", q.Replay.Status)
	// Output:
	// ALPN: tlsbench-ping
	// tickets allow early data: yes
	// 0-RTT accepted: yes
	// 0-RTT on a reused ticket: no
	// replayed 0-RTT accepted: no
}
