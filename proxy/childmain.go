package proxy

import (
	"context"
	"net"

	"github.com/tlsbench/tlsbench/internal/childproc"
)

// ChildCommand is the command word a parent starts the child proxy with
// (tlsbench proxy, with the control flag childproc.Start appends).
const ChildCommand = "proxy"

// The child proxy is the proxy's own: any binary that links this package
// runs it as a child with childproc.RunIfChild, the tlsbench command and
// the test binaries that stand in for it alike.
func init() { childproc.Register(ChildCommand, ChildMain) }

// ChildMain is the whole of a child proxy process, as tlsbench run starts
// it: ServeChild, logging on stderr.
func ChildMain(ctx context.Context, control net.Conn, self childproc.Self) error {
	return ServeChild(ctx, control, self.Stderr)
}
