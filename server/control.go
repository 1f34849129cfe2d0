package server

import (
	"context"
	"net"
	"os"
	"runtime/debug"

	"github.com/tlsbench/tlsbench/internal/callgrind"
	"github.com/tlsbench/tlsbench/internal/childproc"
)

// Hello is the first message a child server sends its parent: where it
// listens and what a client needs to trust it.
type Hello struct {
	PID  int    `json:"pid"`
	Addr string `json:"addr"`
	// QUICAddr is the UDP address the server accepts QUIC on, when
	// Options.QUIC is set.
	QUICAddr string `json:"quic_addr,omitempty"`
	// CAFile is the CA certificate clients should verify the server with,
	// when the server wrote one.
	CAFile string `json:"ca_file,omitempty"`
	// Build names the program serving (its tlsbench and Go versions,
	// e.g. "v1.2.0 (go1.26.8)"), when it says: a run that measures
	// another tlsbench binary's server records which one it was.
	Build string `json:"build,omitempty"`
}

// ServeControl answers the parent on conn until it says quit, closes the
// channel (the parent died), or ctx ends. It sends hello first.
func ServeControl(ctx context.Context, conn net.Conn, srv *Server, hello Hello) error {
	var count callgrind.Counter
	return childproc.Serve(ctx, conn, hello, func(reply func(any) error) error {
		return count.Read(func(instructions *int64) error {
			c := srv.Counters()
			c.Instructions = instructions
			return reply(c)
		})
	})
}

// gcPercent is a server process's GOGC unless its environment sets one
// (SetProcessGC). Its live heap is small (identities, session policy,
// histograms, the connections in flight), so at Go's default of 100 it
// collects every few hundred handshakes, each collection a fixed cost:
// the garbage collector was 5% of a loaded child's CPU. Four times the
// live heap is cheap beside that, and bounded by the connections in
// flight.
const gcPercent = 400

// SetProcessGC sets the garbage collector of a process that is the
// built-in server and nothing else (the child server, tlsbench serve) to
// gcPercent, unless the environment's GOGC says otherwise.
func SetProcessGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}

// ServeChild is the body of a child server process. It reads its Options
// from the control channel, listens (on TCP, and with Options.QUIC on
// UDP at the same address and port), answers with Hello (or the reason
// it cannot start, such as the UDP port taken), and serves until the
// parent says quit or goes away.
func ServeChild(ctx context.Context, control net.Conn, opts ...Option) error {
	var o Options
	conn, err := childproc.ReadConfig(control, &o)
	if err != nil {
		return err
	}
	srv, err := NewFromOptions(o, opts...)
	if err != nil {
		return childproc.Fail(control, err)
	}
	SetProcessGC()
	addr := o.Listen
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := Listen(ctx, addr)
	if err != nil {
		return childproc.Fail(control, err)
	}
	hello := Hello{PID: os.Getpid(), Addr: ln.Addr().String(), Build: srv.build}
	var ql *QUICListener
	if o.QUIC {
		// The TCP listener's address and port, on UDP.
		if ql, err = srv.ListenQUIC(hello.Addr); err != nil {
			ln.Close()
			return childproc.Fail(control, err)
		}
		hello.QUICAddr = ql.Addr().String()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 2)
	go func() { served <- srv.Serve(ctx, ln) }()
	if ql != nil {
		go func() { served <- srv.ServeQUIC(ctx, ql) }()
	}
	err = ServeControl(ctx, conn, srv, hello)
	cancel()
	if serr := <-served; err == nil {
		err = serr
	}
	if ql != nil {
		if serr := <-served; err == nil {
			err = serr
		}
	}
	return err
}
