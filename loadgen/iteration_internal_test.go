package loadgen

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/connerr"
	"github.com/tlsbench/tlsbench/measure"
)

// TestTimedIterationMakesAWave: a timed iteration whose window ended
// before its first wave (a pause of the machine) still makes that wave,
// so that its error names the connections that failed, never "all 0
// handshakes failed" with no reason; and an iteration with no
// connection at all says so.
func TestTimedIterationMakesAWave(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // the port now refuses
	hc := &measure.HandshakeCase{Name: "refused", Concurrency: 2, Iterations: 1, Duration: time.Second,
		Clients: []*tls.Config{{}}, Dialer: client.TCPDialer{Addr: addr}, ConnTimeout: 10 * time.Second}
	r := newCaseRunner(hc)
	defer r.startWorkers()()
	r.until = time.Now().Add(-time.Second) // the window is over already
	_, err = r.iteration(context.Background(), 1<<30, nil)
	var ce *measure.CaseError
	if !errors.As(err, &ce) || ce.Count != 2 || ce.Kind != connerr.Refused || ce.Err == nil {
		t.Errorf("error %v: want every connection of one wave of 2 refused", err)
	}
	if msg := hc.NoneSucceeded(measure.NewIterResult()).Error(); !strings.Contains(msg, "made no connection") || strings.Contains(msg, "all 0") {
		t.Errorf("an iteration without connections: %q", msg)
	}
}
