package pki_test

import (
	"crypto/tls"
	"fmt"
	"log"
	"net"

	"github.com/tlsbench/tlsbench/pki"
)

// A root CA and a server identity for localhost, used for a verified
// handshake over an in-memory connection.
func ExampleNewCA() {
	ca, err := pki.NewCA()
	if err != nil {
		log.Fatal(err)
	}
	id, err := ca.IssueServer(nil) // localhost, 127.0.0.1, ::1
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("DNS:", id.Leaf.DNSNames, "IP:", id.Leaf.IPAddresses)

	serverConn, clientConn := net.Pipe()
	server := tls.Server(serverConn, &tls.Config{Certificates: []tls.Certificate{id.TLSCertificate()}})
	client := tls.Client(clientConn, &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"})
	go func() {
		defer serverConn.Close()
		if server.Handshake() == nil {
			server.Write([]byte{0}) // the client reads it, and the TLS 1.3 session ticket before it
		}
	}()
	if err := client.Handshake(); err != nil {
		log.Fatal(err)
	}
	client.Read(make([]byte, 1))
	state := client.ConnectionState()
	fmt.Println(tls.VersionName(state.Version), "verified by", state.VerifiedChains[0][1].Subject.CommonName)
	clientConn.Close()
	// Output:
	// DNS: [localhost] IP: [127.0.0.1 ::1]
	// TLS 1.3 verified by tlsbench test root CA
}
