package server_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"testing/cryptotest"
	"time"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/internal/usage"
)

// The floor of BenchmarkServerOverhead is crypto/tls alone doing the
// server's side of one recorded handshake, replayed from memory: no
// sockets, no accept, no goroutine per connection, nothing of tlsbench.
// Replaying needs the server to write the same bytes every time (the
// client's recorded Finished is bound to the server's key share and
// signature). Since Go 1.26 crypto/ecdh and crypto/ecdsa ignore
// tls.Config.Rand (unless GODEBUG=cryptocustomrand=1, which crypto/tls's
// own tests set), and ML-KEM's encapsulation never read it, so the only
// way to fix the server's randomness is testing/cryptotest.SetGlobalRandom,
// which takes a *testing.T: the floor runs as this test, in a process of
// its own (the test binary run again with floorEnv set), which is also
// what lets the benchmark read the floor's CPU time as that process's
// own, as it reads the built-in server's.
//
// The recording's client is the benchmark's process, over loopback: a
// client in the floor's process would draw from the same global random
// stream, between the server's draws, and the replay (the server alone)
// would then draw different bytes.

// floorEnv names the overhead configuration a floor process serves.
const floorEnv = "TLSBENCH_SERVER_FLOOR"

// floorCertEnv and floorKeyEnv name the server identity's PEM files.
const (
	floorCertEnv = "TLSBENCH_SERVER_FLOOR_CERT"
	floorKeyEnv  = "TLSBENCH_SERVER_FLOOR_KEY"
)

// floorSeed seeds the floor's randomness, the same for every replay.
const floorSeed = 16

// TestServerFloorReplay checks the premise of the benchmark's floor: for
// every configuration, a recorded handshake replays, with the server
// writing byte for byte what it wrote when recorded, twice. Run with
// floorEnv set, it is instead the floor process of the benchmark.
func TestServerFloorReplay(t *testing.T) {
	if name := os.Getenv(floorEnv); name != "" {
		serveFloor(t, name)
		return
	}
	ca, _, files := testpki.ServerFiles(t)
	for _, oc := range overheadConfigs {
		t.Run(oc.name, func(t *testing.T) {
			f := startFloor(t, oc, files, ca.Pool())
			for range 2 {
				if _, err := f.replay(3); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// serveFloor is the floor process: it records the handshake of one
// client on a loopback listener, says "ready", then answers each line
// "N" on stdin with "cpu NANOS" after replaying N handshakes (or "error
// REASON"), until stdin ends.
func serveFloor(t *testing.T, name string) {
	if _, ok := overheadConfigByName(name); !ok {
		t.Fatalf("no overhead configuration %q", name)
	}
	cert, err := tls.LoadX509KeyPair(os.Getenv(floorCertEnv), os.Getenv(floorKeyEnv))
	if err != nil {
		t.Fatal(err)
	}
	cfg := floorConfig(cert)
	flows, err := recordHandshake(t, cfg)
	if err != nil {
		fmt.Printf("error %v\n", err)
		return
	}
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		n, err := strconv.Atoi(in.Text())
		if err != nil {
			fmt.Printf("error %v\n", err)
			continue
		}
		cpu, err := replayHandshakes(t, cfg, flows, n)
		if err != nil {
			fmt.Printf("error %v\n", err)
			continue
		}
		fmt.Printf("cpu %d\n", cpu.Nanoseconds())
	}
}

// floorConfig is crypto/tls's server configuration: the built-in
// server's versions and defaults, the same certificate without the key
// manager, tickets on (sealed by crypto/tls itself), and a fixed clock so
// that the tickets are the same on every replay.
func floorConfig(cert tls.Certificate) *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{cert},
		Time:         func() time.Time { return time.Unix(1_700_000_000, 0) },
		// A ticket key of its own, or crypto/tls draws one at its
		// first ticket, which only the recording would do. The field,
		// not SetSessionTicketKeys: with the keys set that way the
		// replay departed from the recording (measured: the server's
		// random differed), and the field is what the replay needs.
		//lint:ignore SA1019 the deprecated field keeps the replay byte for byte
		SessionTicketKey: [32]byte{16},
	}
}

// recordHandshake accepts one connection on loopback (its address goes
// to stdout as "listen ADDR") and records the server's side of its
// handshake with cfg.
func recordHandshake(t *testing.T, cfg *tls.Config) ([]flow, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	fmt.Printf("listen %s\n", ln.Addr())
	c, err := ln.Accept()
	if err != nil {
		return nil, err
	}
	defer c.Close()
	rec := &recordingConn{Conn: c}
	cryptotest.SetGlobalRandom(t, floorSeed)
	if err := tls.Server(rec, cfg).Handshake(); err != nil {
		return nil, fmt.Errorf("recording the handshake: %w", err)
	}
	return rec.flows, nil
}

// replayHandshakes replays flows into n server handshakes and returns
// this process's CPU time for them.
func replayHandshakes(t *testing.T, cfg *tls.Config, flows []flow, n int) (time.Duration, error) {
	t0 := usage.SelfCPU()
	for range n {
		cryptotest.SetGlobalRandom(t, floorSeed)
		r := &replayConn{flows: flows}
		if err := tls.Server(r, cfg).Handshake(); err != nil {
			return 0, fmt.Errorf("replaying the handshake: %w", err)
		}
		if r.err != nil || len(r.flows) > 0 {
			return 0, fmt.Errorf("replaying the handshake: %v, %d flows left", r.err, len(r.flows))
		}
	}
	return usage.SelfCPU() - t0, nil
}

// A flow is what one side sent before the other answered.
type flow struct {
	read bool // the server read it (the client sent it)
	data []byte
}

// recordingConn records the flows of a connection, as the server sees
// them.
type recordingConn struct {
	net.Conn
	flows []flow
}

func (c *recordingConn) add(read bool, p []byte) {
	if n := len(c.flows); n > 0 && c.flows[n-1].read == read {
		c.flows[n-1].data = append(c.flows[n-1].data, p...)
		return
	}
	c.flows = append(c.flows, flow{read: read, data: bytes.Clone(p)})
}

func (c *recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.add(true, p[:n])
	return n, err
}

func (c *recordingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.add(false, p[:n])
	return n, err
}

// replayConn plays the client's recorded flows to the server and checks
// that the server writes what it wrote when recorded.
type replayConn struct {
	flows []flow
	off   int // into flows[0]
	err   error
}

var errReplay = errors.New("the server departed from the recording")

func (r *replayConn) Read(p []byte) (int, error) {
	if len(r.flows) == 0 || !r.flows[0].read {
		r.err = fmt.Errorf("%w: it reads where it wrote", errReplay)
		return 0, r.err
	}
	return r.take(p, true), nil
}

func (r *replayConn) Write(p []byte) (int, error) {
	if len(r.flows) == 0 || r.flows[0].read {
		r.err = fmt.Errorf("%w: it writes where it read", errReplay)
		return 0, r.err
	}
	if !bytes.HasPrefix(r.flows[0].data[r.off:], p) {
		r.err = fmt.Errorf("%w: it writes other bytes (its randomness is not fixed): %x, recorded %x", errReplay, p, r.flows[0].data[r.off:])
		return 0, r.err
	}
	return r.take(p, false), nil
}

// take consumes len(p) bytes of the current flow, at most, copying them
// into p when reading.
func (r *replayConn) take(p []byte, read bool) int {
	rest := r.flows[0].data[r.off:]
	n := min(len(p), len(rest))
	if read {
		copy(p, rest[:n])
	}
	r.off += n
	if r.off == len(r.flows[0].data) {
		r.flows, r.off = r.flows[1:], 0
	}
	return n
}

func (r *replayConn) Close() error                     { return nil }
func (r *replayConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (r *replayConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (r *replayConn) SetDeadline(time.Time) error      { return nil }
func (r *replayConn) SetReadDeadline(time.Time) error  { return nil }
func (r *replayConn) SetWriteDeadline(time.Time) error { return nil }

// floorProc is a floor process, seen from the benchmark.
type floorProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// startFloor starts a floor process for oc, makes the handshake it
// records (the client's configuration is oc's, as for the full path),
// and waits until it is ready to replay.
func startFloor(tb testing.TB, oc overheadConfig, files testpki.Files, roots *x509.CertPool) *floorProc {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestServerFloorReplay$", "-test.count=1")
	cmd.Env = append(os.Environ(), floorEnv+"="+oc.name, floorCertEnv+"="+files.Cert, floorKeyEnv+"="+files.Key)
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	f := &floorProc{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	tb.Cleanup(func() { in.Close(); cmd.Wait() })
	addr, err := f.expect("listen")
	if err != nil {
		tb.Fatal(err)
	}
	c, err := tls.Dial("tcp", addr, oc.client(roots))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := f.expect("ready"); err != nil {
		tb.Fatal(err)
	}
	c.Close()
	return f
}

// expect reads the floor process's next line, which must start with
// word, and returns the rest.
func (f *floorProc) expect(word string) (string, error) {
	for f.out.Scan() {
		line := f.out.Text()
		if rest, ok := strings.CutPrefix(line, word); ok {
			return strings.TrimSpace(rest), nil
		}
		if rest, ok := strings.CutPrefix(line, "error "); ok {
			return "", fmt.Errorf("the floor process: %s", rest)
		}
	}
	return "", fmt.Errorf("the floor process ended before saying %q", word)
}

// replay has the floor process replay n handshakes and returns its CPU
// time for them.
func (f *floorProc) replay(n int) (time.Duration, error) {
	if _, err := fmt.Fprintf(f.in, "%d\n", n); err != nil {
		return 0, err
	}
	s, err := f.expect("cpu")
	if err != nil {
		return 0, err
	}
	ns, err := strconv.ParseInt(s, 10, 64)
	return time.Duration(ns), err
}
