package runner_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/measure"

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
	var ce *measure.CaseError
	var pe *client.ProxyError
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
	var se *measure.StallError
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

// answeringProxy is a proxy that never dials the origin: it answers the
// CONNECT, ends the client's TLS itself with id (a certificate for the
// origin's name that the client trusts) and echoes what it reads, so
// that the client's handshakes and pings all succeed while the server
// sees none of them.
func answeringProxy(t *testing.T, id tls.Certificate) string {
	cfg := &tls.Config{Certificates: []tls.Certificate{id}}
	return "http://" + peers.ScriptedProxy(t, func(c net.Conn) {
		if _, err := c.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
			return
		}
		tc := tls.Server(c, cfg)
		buf := make([]byte, 1024)
		for {
			n, err := tc.Read(buf)
			if n > 0 {
				if _, werr := tc.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	})
}

// TestProxyAnsweringForTheServer: through a proxy that answers for the
// server, the client's handshakes succeed and the built-in server, whose
// counters the run reads, completes none of them. Both cases fail their
// gate with a one-line reason, and no figure of the server is divided
// over handshakes it never made: its CPU, allocations and key
// decryptions per handshake are null.
func TestProxyAnsweringForTheServer(t *testing.T) {
	t.Parallel()
	_, id, f := testpki.ServerFiles(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p := runner.Plan{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false, true}, Concurrency: []int{2}, Handshakes: 16,
		Iterations: 2, Warmup: 1, MinResumption: 0.99, ConnTimeout: 5 * time.Second, ChildEnv: []string{testchild.Env()},
		Proxy:  runner.Proxy{URL: answeringProxy(t, id.TLSCertificate()), CAFile: f.CA},
		Target: runner.Target{Request: client.RequestPing}}
	var recs []results.Record
	err := runner.Run(ctx, p, func(r *results.Record) error { recs = append(recs, *r); return nil })
	var failed *runner.FailedCases
	if !errors.As(err, &failed) || len(failed.Errs) != 2 {
		t.Fatalf("error %v: want both cases failed", err)
	}
	var se *measure.ServerUnusedError
	if !errors.As(err, &se) || se.Client != 32 {
		t.Fatalf("error %v: want the server's want of handshakes as the reason", err)
	}
	for _, e := range failed.Errs {
		if msg := e.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "the server completed none of the client's 32 handshakes") {
			t.Errorf("reason %q: want one line that says the server made none of the handshakes", msg)
		}
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want both cases'", len(recs))
	}
	for _, r := range recs {
		if r.Handshakes != 32 || r.Verdict != "failed" {
			t.Errorf("%s: %d handshakes, verdict %q: want the client's 32, failed", r.Name, r.Handshakes, r.Verdict)
		}
		if r.ServerCPUUS != nil || r.ServerAllocBytes != nil {
			t.Errorf("%s: server_cpu_us %v, server_alloc_bytes %v over 0 server handshakes: want null", r.Name, r.ServerCPUUS, r.ServerAllocBytes)
		}
		if _, ok := r.Extra["server_key_decryptions_per_handshake"]; ok {
			t.Errorf("%s: server key decryptions per handshake over 0 server handshakes", r.Name)
		}
		if r.ServerResumed == nil || *r.ServerResumed != 0 {
			t.Errorf("%s: server_resumed %v: the server's count is known, and 0", r.Name, r.ServerResumed)
		}
		if err := r.Validate(); err != nil {
			t.Errorf("%s: %v", r.Name, err)
		}
	}
}
