package server_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// overheadConfig is one configuration of BenchmarkServerOverhead: the
// version, the group the handshake must use and the groups the client
// offers (the server's key is always ECDSA P-256, testpki's). A TLS 1.2
// client must offer P-256 for an ECDSA P-256 certificate to be chosen
// for it (the key manager checks, as OpenSSL does), so TLS 1.2 with
// X25519 offers both, and the server prefers X25519.
type overheadConfig struct {
	name    string
	version uint16
	group   tls.CurveID
	offered []tls.CurveID
}

var overheadConfigs = []overheadConfig{
	{"tls1.2-x25519", tls.VersionTLS12, tls.X25519, []tls.CurveID{tls.X25519, tls.CurveP256}},
	{"tls1.2-p256", tls.VersionTLS12, tls.CurveP256, []tls.CurveID{tls.CurveP256}},
	{"tls1.3-x25519", tls.VersionTLS13, tls.X25519, []tls.CurveID{tls.X25519}},
	{"tls1.3-x25519mlkem768", tls.VersionTLS13, tls.X25519MLKEM768, []tls.CurveID{tls.X25519MLKEM768}},
}

func overheadConfigByName(name string) (overheadConfig, bool) {
	for _, oc := range overheadConfigs {
		if oc.name == name {
			return oc, true
		}
	}
	return overheadConfig{}, false
}

// client is the client's configuration for oc, the same for the full
// path and the floor's recording: no session cache, full handshakes only.
func (oc overheadConfig) client(roots *x509.CertPool) *tls.Config {
	return tlsconf.Client(tlsconf.ClientOptions{
		Version: oc.version, Groups: oc.offered,
		RootCAs: roots, ServerName: "localhost",
	})
}

// overheadBlock is the handshakes per block of each side.
const overheadBlock = 128

// overheadConcurrency is the full path's connections at a time: enough
// to keep the server busy, as under load. One at a time, the server's
// process sleeps and is woken for every connection (its scheduler, its
// system monitor, futexes), which costs about as much again as the
// handshake itself: a different question from this benchmark's.
const overheadConcurrency = 16

// BenchmarkServerOverhead measures the built-in server's CPU per full
// handshake on its whole path against crypto/tls's floor for the same
// handshake, per configuration (TLS 1.2 with X25519 or P-256, TLS 1.3
// with X25519 or X25519MLKEM768; ECDSA P-256 key):
//
//	go test ./server -run '^$' -bench ServerOverhead -benchtime 10x -count 5
//
// The full path is the built-in server in a child process (tlsbench
// serve: its accept loop, key manager, session policy, counters and
// phases) over loopback, driven by clients in this process, 16
// connections at a time, each of which connects, handshakes, exchanges
// one byte (so that a TLS 1.3 server has read the client's Finished, as
// in every tlsbench run) and closes abortively. Its CPU is the child
// process's, from its counters before and after each block, which also
// must count every handshake of the block, in the configuration's
// version and group; the clients' CPU is this process's, not counted.
//
// The floor is crypto/tls's server alone, replaying one handshake of the
// same client recorded once (as crypto/tls's own BenchmarkHandshakeServer
// does), in a process of its own that does nothing else, whose CPU time
// is read the same way (see floor_test.go for why it must be a process
// of its own). Both figures thus include the garbage collector and the
// runtime of a process doing only that work; the floor's include
// reseeding its randomness before each replay (negligible beside it).
// The floor runs at Go's default GOGC, the child server at its own (see
// childGCPercent); GOGC=400 in the environment sets both alike.
//
// Each benchmark round runs a block of each, alternating which goes
// first, so that a noisy neighbour slows both alike (with
// TLSBENCH_OVERHEAD_BASE, a third block of another build's server: see
// overheadBaseEnv). Metrics:
// full-path-cpu-us/hs, floor-cpu-us/hs and full/floor, the overhead, and
// full-path-B/hs, the server's heap allocation per handshake.
func BenchmarkServerOverhead(b *testing.B) {
	ca, _, files := testpki.ServerFiles(b)
	opts := server.Options{Identities: []server.IdentityFiles{{Cert: files.Cert, Key: files.Key}}}
	child := startOverheadChild(b, servertest.ChildOptions(opts))
	var base *server.Child
	if exe := os.Getenv(overheadBaseEnv); exe != "" {
		o := servertest.ChildOptions(opts)
		o.Path = exe
		base = startOverheadChild(b, o)
	}
	for _, oc := range overheadConfigs {
		b.Run(oc.name, func(b *testing.B) {
			benchmarkOverhead(b, oc, startFloor(b, oc, files, ca.Pool()), ca.Pool(), child, base)
		})
	}
}

// overheadBaseEnv names another build of this test binary (go test -c)
// whose server BenchmarkServerOverhead measures beside this one's, in the
// same rounds: a change to the server is judged within one run, as
// base-cpu-us/hs and full/base.
const overheadBaseEnv = "TLSBENCH_OVERHEAD_BASE"

func startOverheadChild(b *testing.B, o server.ChildOptions) *server.Child {
	child, err := server.StartChild(context.Background(), o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { child.Close() })
	return child
}

func benchmarkOverhead(b *testing.B, oc overheadConfig, floor *floorProc, roots *x509.CertPool, child, base *server.Child) {
	cfg := oc.client(roots)
	var allocs uint64
	var fullCPU, floorCPU, baseCPU time.Duration
	full := func(c *server.Child, sum *time.Duration) func() {
		return func() {
			d, err := fullPathBlock(c, c.Hello().Addr, cfg, oc, overheadConcurrency)
			if err != nil {
				b.Fatal(err)
			}
			if c == child {
				allocs += d.AllocBytes
			}
			*sum += time.Duration(d.CPUNanos)
		}
	}
	replay := func() {
		d, err := floor.replay(overheadBlock)
		if err != nil {
			b.Fatal(err)
		}
		floorCPU += d
	}
	blocks := []func(){full(child, &fullCPU), replay}
	if base != nil {
		blocks = append(blocks, full(base, &baseCPU))
	}
	for _, block := range blocks { // warm: the children's first connections, the floor's first replays
		block()
	}
	fullCPU, floorCPU, baseCPU, allocs = 0, 0, 0, 0
	for i := 0; b.Loop(); i++ {
		// Rotate which block goes first, so that none always follows
		// another.
		for k := range blocks {
			blocks[(i+k)%len(blocks)]()
		}
	}
	n := float64(b.N * overheadBlock)
	b.ReportMetric(float64(fullCPU.Nanoseconds())/1e3/n, "full-path-cpu-us/hs")
	b.ReportMetric(float64(floorCPU.Nanoseconds())/1e3/n, "floor-cpu-us/hs")
	b.ReportMetric(float64(fullCPU)/float64(floorCPU), "full/floor")
	b.ReportMetric(float64(allocs)/n, "full-path-B/hs")
	if base != nil {
		b.ReportMetric(float64(baseCPU.Nanoseconds())/1e3/n, "base-cpu-us/hs")
		b.ReportMetric(float64(fullCPU)/float64(baseCPU), "full/base")
	}
}

// fullPathBlock makes a block of handshakes with the child server and
// returns the child's counters for them, checking that it counted each
// one in oc's version and group.
func fullPathBlock(child *server.Child, addr string, cfg *tls.Config, oc overheadConfig, concurrency int) (server.Counters, error) {
	before, err := child.Counters()
	if err != nil {
		return server.Counters{}, err
	}
	errs := make(chan error, concurrency)
	for range concurrency {
		go func() {
			var err error
			for i := 0; i < overheadBlock/concurrency && err == nil; i++ {
				err = fullPathHandshake(addr, cfg)
			}
			errs <- err
		}()
	}
	for range concurrency {
		if err := <-errs; err != nil {
			return server.Counters{}, err
		}
	}
	after, err := child.Counters()
	if err != nil {
		return server.Counters{}, err
	}
	d := after.Sub(before)
	version, group := tlsconf.VersionName(oc.version), tlsconf.GroupName(oc.group)
	if d.Handshakes != overheadBlock || d.Versions[version] != overheadBlock || d.Groups[group] != overheadBlock {
		return server.Counters{}, fmt.Errorf("the server counted %d handshakes (%v, %v), want %d in %s with %s",
			d.Handshakes, d.Versions, d.Groups, overheadBlock, version, group)
	}
	return d, nil
}

// fullPathHandshake is one connection of the full path: connect,
// handshake, one byte each way, abortive close.
func fullPathHandshake(addr string, cfg *tls.Config) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	tc := tls.Client(c, cfg)
	if err := tc.Handshake(); err != nil {
		return err
	}
	if _, err := tc.Write([]byte{1}); err != nil {
		return err
	}
	if _, err := io.ReadFull(tc, make([]byte, 1)); err != nil {
		return err
	}
	return c.(*net.TCPConn).SetLinger(0)
}
