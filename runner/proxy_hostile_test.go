package runner_test

import (
	"context"
	"crypto/tls"
	"errors"
	"github.com/tlsbench/tlsbench/internal/peers"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// fakeProxy listens on loopback and answers every CONNECT with answer
// ("" answers nothing and holds the connection).
func fakeProxy(t *testing.T, answer string) string {
	return "http://" + peers.ScriptedProxy(t, func(c net.Conn) {
		if answer == "" {
			c.Read(make([]byte, 1)) // silent until the client gives up
			return
		}
		c.Write([]byte(answer))
	})
}

// TestProxyRefusesConnect: a proxy that refuses the CONNECT fails the
// case, in both modes, with the proxy's status and its own reason; one
// that never answers fails it at the connection timeout.
func TestProxyRefusesConnect(t *testing.T) {
	t.Parallel()
	_, _, f := testpki.ServerFiles(t)
	refusing := fakeProxy(t, "HTTP/1.1 403 Forbidden\r\nX-Tlsbench-Error: port 1234 is not allowed\r\nContent-Length: 0\r\n\r\n")
	silent := fakeProxy(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	hs := runner.Plan{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false}, Concurrency: []int{1}, Handshakes: 2,
		Iterations: 1, ConnTimeout: 2 * time.Second, ChildEnv: []string{testchild.Env()},
		Proxy: runner.Proxy{URL: refusing, CAFile: f.CA}}
	err := runner.Run(ctx, hs, func(*results.Record) error { return nil })
	var ce *loadgen.CaseError
	var pe *loadgen.ProxyError
	if !errors.As(err, &ce) || !errors.As(err, &pe) || pe.Status != 403 || !strings.Contains(ce.Error(), "port 1234 is not allowed") {
		t.Fatalf("handshake through a refusing proxy: %v", err)
	}

	tp := runner.ThroughputPlan{Versions: []uint16{tls.VersionTLS13}, Ciphers: []string{ktls.CipherAES128GCM}, Buffers: []int{16 << 10},
		KTLS: []ktls.Mode{ktls.ModeOff}, Directions: []string{loadgen.DirectionDownload}, Concurrency: []int{1}, Bytes: 1 << 20,
		Iterations: 1, ConnTimeout: 2 * time.Second, ChildEnv: []string{testchild.Env()},
		Proxy: runner.Proxy{URL: refusing, CAFile: f.CA}}
	err = tp.Run(ctx, func(*results.Record) error { return nil })
	var te *loadgen.ThroughputError
	if !errors.As(err, &te) || !errors.As(err, &pe) || !strings.Contains(te.Error(), "port 1234 is not allowed") {
		t.Fatalf("throughput through a refusing proxy: %v", err)
	}

	hs.Proxy.URL = silent
	err = runner.Run(ctx, hs, func(*results.Record) error { return nil })
	var se *loadgen.StallError
	if !errors.As(err, &se) && !errors.As(err, &ce) {
		t.Fatalf("handshake through a silent proxy: %v (%T)", err, err)
	}
	var fc *runner.FailedCases
	if !errors.As(err, &fc) || len(fc.Errs) != 1 {
		t.Fatalf("handshake through a silent proxy: %v, want one failed case", err)
	}
	if msg := fc.Errs[0].Error(); !strings.Contains(msg, "timeout") && !strings.Contains(msg, "timed out") {
		t.Errorf("a silent proxy must fail at the connection timeout: %v", msg)
	}
}
