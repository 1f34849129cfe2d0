package server

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/tlsbench/tlsbench/internal/childproc"
)

// ChildOptions say how to start a server in a process of its own.
type ChildOptions struct {
	// Path is the executable (normally tlsbench itself, os.Executable) and
	// Args its arguments after the program name (normally ["serve"]).
	// StartChild appends the control flag "--control-fd 3"; the server's
	// configuration is sent over that channel, not on the command line.
	Path string
	Args []string
	// Server is the child server's configuration.
	Server Options
	// Env is added to the parent's environment.
	Env []string
	// StartTimeout bounds the wait for the child's Hello (default 30 s).
	StartTimeout time.Duration
}

// Child is a server running in a child process, reachable only through
// the control channel its parent holds.
type Child struct {
	c     *childproc.Child
	hello Hello
}

// ExitError is a child server that ended without being asked to: how it
// ended and its last words on stderr.
type ExitError = childproc.ExitError

// childWhat names the child server in errors.
const childWhat = "the built-in server"

// StartChild starts the child server and waits until it listens. Errors
// carry the child's own last words (for example "address already in
// use").
func StartChild(ctx context.Context, o ChildOptions) (*Child, error) {
	ch := &Child{}
	c, err := childproc.Start(ctx, childproc.Options{
		Path: o.Path, Args: o.Args, Config: o.Server, Env: o.Env,
		StartTimeout: o.StartTimeout, What: childWhat,
	}, &ch.hello)
	if errors.Is(err, childproc.ErrUnsupported) {
		return nil, fmt.Errorf("a child server process is not supported on %s; use {Transports} memory or {Target.Addr}", runtime.GOOS)
	}
	if err != nil {
		return nil, err
	}
	ch.c = c
	return ch, nil
}

// Hello returns what the child reported at start.
func (c *Child) Hello() Hello { return c.hello }

// PID is the child's process id.
func (c *Child) PID() int { return c.c.PID() }

// Counters asks the child for its counters.
func (c *Child) Counters() (Counters, error) {
	var cs Counters
	err := c.c.Request(childproc.ReqCounters, &cs)
	return cs, err
}

// Close asks the child to quit and waits for it (killing it after 5 s).
func (c *Child) Close() error { return c.c.Close() }

// Done is closed when the child process has ended, for whatever reason.
func (c *Child) Done() <-chan struct{} { return c.c.Done() }

// Exited returns nil while the child runs or after Close stopped it, and
// an *ExitError once it has ended by itself (killed, crashed, exited).
func (c *Child) Exited() error { return c.c.Exited() }
