package peers

import (
	"bufio"
	"net"
	"net/http"
	"testing"
	"time"
)

// ScriptedProxy is a misbehaving HTTP proxy on 127.0.0.1 for tests of
// what a client does with what proxies answer: it reads each
// connection's request head (a CONNECT) and hands the connection to
// serve, which answers as the test wants (garbage, an endless head, a
// refusal, silence). It returns host:port and stops with the test.
func ScriptedProxy(t testing.TB, serve func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(time.Minute))
				if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
					return
				}
				serve(c)
			}()
		}
	}()
	return ln.Addr().String()
}
