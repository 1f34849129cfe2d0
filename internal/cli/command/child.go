package command

import (
	"io"
	"net"

	"github.com/tlsbench/tlsbench/internal/childproc"
	"github.com/tlsbench/tlsbench/results"
)

// The hidden --control-fd of serve and proxy: tlsbench run starts its
// child server and proxy as this program again, on a control channel.

// ControlConn is the control channel tlsbench run hands its child server
// or proxy as descriptor fd. The one error there is for whoever starts a
// child by hand: the descriptor is not that socket.
func ControlConn(fd int) (net.Conn, error) {
	conn, err := childproc.ControlConn(fd)
	if err != nil {
		return nil, Usagef("%v", err)
	}
	return conn, nil
}

// ChildSelf is what a child service is told of this process: its stderr
// and the build that serves.
func ChildSelf(stderr io.Writer) childproc.Self {
	env := results.CurrentEnv()
	return childproc.Self{Stderr: stderr, Build: env.TLSBenchVersion + " (" + env.GoVersion + ")"}
}
