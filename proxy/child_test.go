package proxy_test

import (
	"context"
	"crypto/x509"
	"errors"
	"testing"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/proxy"
)

// TestChildRelaysAndCounts: a proxy in a child process tunnels to the
// origin with the CA it reports, counts over its control channel (its
// own CPU included) and quits when asked.
func TestChildRelaysAndCounts(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	child, err := proxy.StartChild(context.Background(), servertest.ProxyChildOptions(proxy.Options{
		PKIDir: t.TempDir(), OriginCA: org.caFile, ConnectPorts: []int{org.port}, MintCache: true,
	}))
	if err != nil {
		t.Fatal(err)
	}
	h := child.Hello()
	if h.PID != child.PID() || h.Addr == "" || h.CAFile == "" {
		t.Fatalf("hello %+v", h)
	}
	certs, err := pki.LoadCertsPEM(h.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	r := &running{addr: h.Addr, pool: x509.NewCertPool()}
	r.pool.AddCert(certs[0])
	tc := r.tunnel(t, org, nil)
	echo(t, tc, pattern(100000, 3))
	tc.Close()
	before, err := child.Counters()
	if err != nil {
		t.Fatal(err)
	}
	if before.Connects != 1 || before.Mints != 1 || before.CPUNanos <= 0 || before.AllocBytes == 0 {
		t.Errorf("counters %+v", before)
	}
	if d := before.Sub(before); d.Connects != 0 || d.CPUNanos != 0 || d.BytesToClient != 0 {
		t.Errorf("Sub of itself: %+v", d)
	}
	if err := child.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if err := child.Exited(); err != nil {
		t.Errorf("exited after close: %v", err)
	}
}

// TestChildBadOptions: a setting the child refuses comes back as the
// field error, and no process is left.
func TestChildBadOptions(t *testing.T) {
	t.Parallel()
	_, err := proxy.StartChild(context.Background(), servertest.ProxyChildOptions(proxy.Options{PKIDir: t.TempDir(), Buffer: 1}))
	var fe *field.Error
	if !errors.As(err, &fe) || fe.Field != "Buffer" {
		t.Fatalf("start with a 1-byte buffer: %v", err)
	}
}
