package runner_test

import (
	"context"
	"crypto/tls"
	"testing"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// TestMemoryAdapters: a case over MemoryDialer runs against the
// in-process server, which InProcessServer observes: counts, no CPU of
// its own, and no process whose CPUs to watch.
func TestMemoryAdapters(t *testing.T) {
	t.Parallel()
	cfg, ca := testpki.Server(t)
	srv := server.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	obs := runner.InProcessServer{Server: srv}
	if _, ok := any(obs).(measure.ServerProcess); ok {
		t.Error("an in-process server claims a process of its own")
	}
	hc := measure.HandshakeCase{
		Name: "memory", Version: tls.VersionTLS13, Concurrency: 4, Handshakes: 16, Iterations: 2,
		Clients: []*tls.Config{tlsconf.Client(tlsconf.ClientOptions{Version: tls.VersionTLS13, RootCAs: ca.Pool(), ServerName: "localhost"})},
		Dialer:  runner.MemoryDialer{Server: srv, Ctx: ctx},
		Server:  obs,
	}
	rec, err := loadgen.RunHandshakes(ctx, hc)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Transport != "memory" || rec.Handshakes != 32 || rec.ServerCPUUS != nil {
		t.Errorf("transport %q, %d handshakes, server CPU %v: want memory, 32, none", rec.Transport, rec.Handshakes, rec.ServerCPUUS)
	}
	if got, _ := obs.Snapshot(); got.Handshakes != 32 || got.HasCPU {
		t.Errorf("server snapshot %+v: want 32 handshakes and no CPU", got)
	}
}

// TestChildServerAdapter: ChildServer reports the child's counts and its
// own CPU, and names its process so that the case watches its CPUs.
func TestChildServerAdapter(t *testing.T) {
	t.Parallel()
	ca, _, f := testpki.ServerFiles(t)
	files := server.IdentityFiles{Cert: f.Cert, Key: f.Key}
	child := servertest.StartChild(t, server.Options{Listen: "127.0.0.1:0", Identities: []server.IdentityFiles{files}})
	var obs measure.ServerObserver = runner.ChildServer{Child: child}
	if p, ok := obs.(measure.ServerProcess); !ok || p.ServerPID() != child.PID() {
		t.Fatalf("ChildServer does not name the child's process %d", child.PID())
	}
	hc := measure.HandshakeCase{
		Name: "child", Version: tls.VersionTLS12, Concurrency: 2, Handshakes: 8, Iterations: 1,
		Clients: []*tls.Config{tlsconf.Client(tlsconf.ClientOptions{Version: tls.VersionTLS12, RootCAs: ca.Pool(), ServerName: "localhost"})},
		Dialer:  client.TCPDialer{Addr: child.Hello().Addr},
		Server:  obs,
	}
	rec, err := loadgen.RunHandshakes(context.Background(), hc)
	if err != nil {
		t.Fatal(err)
	}
	if rec.ServerCPUUS == nil || *rec.ServerCPUUS <= 0 || rec.ServerAllocBytes == nil {
		t.Errorf("server CPU %v, allocations %v: want the child's own", rec.ServerCPUUS, rec.ServerAllocBytes)
	}
	if got, err := obs.Snapshot(); err != nil || got.Handshakes != 8 {
		t.Errorf("snapshot %+v, %v: want 8 handshakes", got, err)
	} else if l := got.Phases[results.PhaseServerHandshake]; l == nil || l.Count() != 8 {
		t.Errorf("snapshot phases %v: want the server's 8 handshakes timed", got.Phases)
	}
}
