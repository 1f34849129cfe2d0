package proxy

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/tlsbench/tlsbench/internal/childproc"
)

// ChildOptions say how to start a proxy in a process of its own.
type ChildOptions struct {
	// Path is the executable (normally tlsbench itself) and Args its
	// arguments after the program name (normally ["proxy"]). StartChild
	// appends "--control-fd 3"; the configuration travels over that
	// channel, not on the command line.
	Path string
	Args []string
	// Proxy is the child proxy's configuration. Its Listen defaults to a
	// free loopback port (127.0.0.1:0).
	Proxy Options
	// Env is added to the parent's environment.
	Env []string
	// StartTimeout bounds the wait for the child's Hello (default 30 s).
	StartTimeout time.Duration
}

// Hello is the first message a child proxy sends its parent.
type Hello struct {
	PID  int    `json:"pid"`
	Addr string `json:"addr"`
	// CAFile is the CA certificate of the minted certificates: what the
	// proxy's clients must trust.
	CAFile string `json:"ca_file"`
}

// Child is a proxy running in a child process, reachable only through
// the control channel its parent holds.
type Child struct {
	*childproc.Of[Hello, Counters]
}

// ExitError is a child proxy that ended without being asked to: how it
// ended and its last words on stderr.
type ExitError = childproc.ExitError

// StartChild starts the child proxy and waits until it listens. Errors
// carry the child's own last words, or its *field.Error.
func StartChild(ctx context.Context, o ChildOptions) (*Child, error) {
	if o.Proxy.Listen == "" {
		o.Proxy.Listen = "127.0.0.1:0"
	}
	c, err := childproc.StartOf[Hello, Counters](ctx, childproc.Options{
		Path: o.Path, Args: o.Args, Config: o.Proxy, Env: o.Env,
		StartTimeout: o.StartTimeout, What: "the built-in proxy",
	})
	if err != nil {
		return nil, err
	}
	return &Child{c}, nil
}

// ServeChild is the body of a child proxy process. It reads its Options
// from the control channel, listens, answers with Hello (or the reason it
// cannot start), and serves until the parent says quit or goes away. It
// logs to stderr at the Options' level.
func ServeChild(ctx context.Context, control net.Conn, stderr io.Writer, opts ...Option) error {
	var o Options
	conn, err := childproc.ReadConfig(control, &o)
	if err != nil {
		return err
	}
	level, _ := parseLevel(o.LogLevel)
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	p, err := New(o, append([]Option{WithLogger(logger)}, opts...)...)
	if err != nil {
		return childproc.Fail(control, err)
	}
	ln, err := Listen(p.o.Listen)
	if err != nil {
		return childproc.Fail(control, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- p.Serve(ctx, ln) }()
	hello := Hello{PID: os.Getpid(), Addr: ln.Addr().String(), CAFile: p.CAFile()}
	err = childproc.Serve(ctx, conn, hello, func(reply func(any) error) error { return reply(p.Counters()) })
	cancel()
	if serr := <-served; err == nil {
		err = serr
	}
	return err
}
