package probe_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"log"
	"net"

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
