package server

import (
	"context"
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
	// Instructions runs the child under callgrind: its Counters then
	// carry its instructions.
	Instructions bool
}

// Child is a server running in a child process, reachable only through
// the control channel its parent holds.
type Child struct {
	*childproc.Of[Hello, Counters]
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
	c, err := childproc.StartOf[Hello, Counters](ctx, childproc.Options{
		Path: o.Path, Args: o.Args, Config: o.Server, Env: o.Env,
		StartTimeout: o.StartTimeout, What: childWhat, Instructions: o.Instructions,
	})
	if err != nil {
		// Where a child process cannot run (childproc.ErrUnsupported),
		// the caller says what to use instead.
		return nil, err
	}
	return &Child{c}, nil
}
