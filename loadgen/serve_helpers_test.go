package loadgen_test

import (
	"net"
	"sync"
	"testing"
)

// serveEach serves every connection ln accepts with handle, each on its
// own goroutine, until the test ends: then ln is closed, done is closed
// (for handlers that wait), and the cleanup waits for every handler.
func serveEach(t *testing.T, ln net.Listener, handle func(c net.Conn, done <-chan struct{})) {
	t.Helper()
	var wg sync.WaitGroup
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				handle(c, done)
			}()
		}
	}()
}
