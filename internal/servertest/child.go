package servertest

import (
	"context"
	"net"
	"os"
	"sync"
	"testing"

	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/proxy"
	"github.com/tlsbench/tlsbench/server"
)

// ChildOptions start the built-in server from o in a child process: this
// test binary again (its TestMain calls testchild.RunIfChild), as
// tlsbench run starts tlsbench serve.
func ChildOptions(o server.Options) server.ChildOptions {
	exe, _ := os.Executable()
	return server.ChildOptions{Path: exe, Args: []string{server.ChildCommand}, Env: []string{testchild.Env()}, Server: o}
}

// StartChild starts the built-in server from o in a child process
// (ChildOptions), stopped when the test ends.
func StartChild(t testing.TB, o server.Options) *server.Child {
	t.Helper()
	child, err := server.StartChild(context.Background(), ChildOptions(o))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Close() })
	return child
}

// ProxyChildOptions start the built-in proxy from o in a child process:
// this test binary again, as tlsbench run starts tlsbench proxy.
func ProxyChildOptions(o proxy.Options) proxy.ChildOptions {
	exe, _ := os.Executable()
	return proxy.ChildOptions{Path: exe, Args: []string{proxy.ChildCommand}, Env: []string{testchild.Env()}, Proxy: o}
}

// Proxy is the built-in proxy serving in this process until the test
// ends.
type Proxy struct {
	*proxy.Proxy
	Addr string
	stop func() error
}

// Stop ends the proxy before the test does and returns what Serve
// returned. It is safe to call again.
func (p *Proxy) Stop() error { return p.stop() }

// ServeProxy serves p on ln until the test ends (or Stop).
func ServeProxy(t testing.TB, p *proxy.Proxy, ln net.Listener) *Proxy {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	stop := sync.OnceValue(func() error { cancel(); return <-done })
	t.Cleanup(func() { stop() })
	return &Proxy{Proxy: p, Addr: ln.Addr().String(), stop: stop}
}

// StartProxy serves p on a free port of 127.0.0.1 until the test ends.
func StartProxy(t testing.TB, p *proxy.Proxy) *Proxy {
	t.Helper()
	return ServeProxy(t, p, Listen(t))
}
