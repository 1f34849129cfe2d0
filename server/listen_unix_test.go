//go:build unix

package server_test

import (
	"context"
	"net"
	"syscall"
	"testing"

	"github.com/tlsbench/tlsbench/server"
)

// TestListenNoKeepAlive: the connections server.Listen accepts have TCP
// keep-alive off (net's default would turn it on), and net.Listen's do,
// which shows that the check can fail.
func TestListenNoKeepAlive(t *testing.T) {
	t.Parallel()
	sl, err := server.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer sl.Close()
	nl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer nl.Close()
	for _, tc := range []struct {
		name string
		ln   net.Listener
		want int
	}{{"server.Listen", sl, 0}, {"net.Listen", nl, 1}} {
		if got := acceptedKeepAlive(t, tc.ln); got != tc.want {
			t.Errorf("%s: SO_KEEPALIVE = %d on an accepted connection, want %d", tc.name, got, tc.want)
		}
	}
}

// acceptedKeepAlive dials ln and returns SO_KEEPALIVE of the connection
// it accepts.
func acceptedKeepAlive(t *testing.T, ln net.Listener) int {
	t.Helper()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	raw, err := a.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var serr error
	if err := raw.Control(func(fd uintptr) { v, serr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_KEEPALIVE) }); err != nil {
		t.Fatal(err)
	}
	if serr != nil {
		t.Fatal(serr)
	}
	return v
}
