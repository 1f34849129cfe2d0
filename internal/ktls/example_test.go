package ktls_test

import (
	"crypto/tls"
	"io"
	"log"
	"net"

	"github.com/tlsbench/tlsbench/internal/ktls"
)

// A server that moves each connection to kTLS after the handshake when the
// kernel can (the --ktls auto policy) and stays in user space otherwise.
func ExampleEnable() {
	use, reason, err := ktls.ModeAuto.Decide()
	if err != nil {
		log.Fatal(err)
	}
	if !use {
		log.Print(reason) // e.g. "user-space TLS: kTLS is not supported: kernel has no TLS ULP (CONFIG_TLS): ..."
	}
	// Each connection logs its own secrets into its RecordConn.
	cfg := ktls.ServerConfig(&tls.Config{ /* Certificates: ... */ })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			rc := ktls.WrapConn(c)
			tc := tls.Server(rc, cfg)
			if err := tc.Handshake(); err != nil {
				c.Close()
				return
			}
			var conn net.Conn = tc
			if use {
				if kc, err := ktls.Enable(tc, rc, ktls.Both); err == nil {
					conn = kc // reads and writes now go straight to the socket
				} else {
					log.Printf("staying in user space: %v", err) // tc still works
				}
			} else {
				rc.Passthrough() // no more record-exact reads; secrets wiped
			}
			defer conn.Close()
			io.Copy(conn, conn) // echo
		}()
	}
}
