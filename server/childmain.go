package server

import (
	"context"
	"log/slog"
	"net"

	"github.com/tlsbench/tlsbench/internal/childproc"
)

// ChildCommand is the command word a parent starts the child server with
// (tlsbench serve, with the control flag childproc.Start appends).
const ChildCommand = "serve"

// The child server is the server's own: any binary that links this
// package runs it as a child with childproc.RunIfChild, the tlsbench
// command and the test binaries that stand in for it alike.
func init() { childproc.Register(ChildCommand, ChildMain) }

// ChildMain is the whole of a child server process, as tlsbench run
// starts it: ServeChild, its refused handshakes logged on stderr (whose
// last lines explain a server that dies during a run), its hello naming
// self.Build.
func ChildMain(ctx context.Context, control net.Conn, self childproc.Self) error {
	logger := slog.New(slog.NewTextHandler(self.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return ServeChild(ctx, control, WithLogger(logger), WithBuild(self.Build))
}
