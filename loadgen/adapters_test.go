package loadgen_test

import (
	"context"
	"net"
	"time"

	"github.com/tlsbench/tlsbench/internal/memconn"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/server"
)

// The tests' own adapters to an in-process built-in server: loadgen
// itself knows no server code (the tool's adapters live in runner).

// inProcess observes srv's counts.
type inProcess struct{ srv *server.Server }

func (o inProcess) Snapshot() (measure.ServerSnapshot, error) {
	c := o.srv.Counters()
	return measure.ServerSnapshot{HasCounts: true, Handshakes: c.Handshakes, Resumed: c.Resumed, Failures: c.Failures,
		Identities: c.Identities, KeyDecryptions: c.KeyDecryptions, Declined: c.Declined}, nil
}

// memDialer connects to srv over in-memory pipes.
type memDialer struct{ srv *server.Server }

func (d memDialer) Dial(context.Context, time.Time) (net.Conn, error) {
	client, srv := memconn.Pipe()
	go d.srv.ServeConn(context.Background(), srv)
	return client, nil
}

func (memDialer) Transport() string { return "memory" }

// share is a gate's share, for the fields that are off when nil.
func share(v float64) *float64 { return &v }
