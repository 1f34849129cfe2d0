package runner_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
	"github.com/tlsbench/tlsbench/server"
)

// backlogListener listens on a loopback port with an accept backlog of
// backlog, made with the system calls themselves: Go's net.Listen always
// asks for the system's maximum.
func backlogListener(t *testing.T, backlog int) net.Listener {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), "listener")
	defer f.Close() // FileListener holds a copy
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(fd, backlog); err != nil {
		t.Fatal(err)
	}
	ln, err := net.FileListener(f)
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// slowAccepter accepts one connection per every: a server that takes
// connections off its queue more slowly than they come.
type slowAccepter struct {
	net.Listener
	every time.Duration
}

func (l slowAccepter) Accept() (net.Conn, error) {
	time.Sleep(l.every)
	return l.Listener.Accept()
}

// serveOn serves TLS on ln with the built-in server until the test ends.
func serveOn(t *testing.T, ln net.Listener, f testpki.Files) {
	t.Helper()
	srv, err := server.NewFromOptions(server.Options{Identities: []server.IdentityFiles{{Cert: f.Cert, Key: f.Key}}})
	if err != nil {
		t.Fatal(err)
	}
	servertest.Serve(t, srv, ln)
}

// listenPlan is one small case at concurrency 16 against addr, whose
// connections give up after 1.5 s: a SYN the kernel dropped is sent
// again after 1 s, so the case sees the drops and still ends within
// seconds.
func listenPlan(addr, ca string) runner.Plan {
	p := smallPlan()
	p.Versions, p.Resume, p.Concurrency = []uint16{tls.VersionTLS13}, []bool{false}, []int{16}
	p.Handshakes, p.Iterations, p.Warmup = 16, 1, 0
	p.ConnTimeout = 1500 * time.Millisecond
	p.Target = runner.Target{Addr: addr, CAFile: ca, ServerName: "localhost", Request: client.RequestPing}
	return p
}

// listenNote returns the record's note on the listen queue, or "".
func listenNote(rec *results.Record) string {
	for _, n := range rec.Notes {
		if strings.Contains(n, "listen queue") || strings.Contains(n, "connection attempts") {
			return n
		}
	}
	return ""
}

// TestListenQueueOverflow: a server with an accept backlog of 1 that
// accepts a connection every 50 ms, measured at concurrency 16 (as
// gnutls-serv, whose backlog is 10, is at concurrency 64). The kernel
// drops the SYNs that find its queue full, and the connections that
// waited for their retransmit time out. The record counts the overflows
// and its note says what the connections waited for; when the case
// fails (here in its warm-up, which leaves no record), its one-line
// reason names the listen queue, and so does its own error. The same
// case against a server that accepts as fast as connections come
// counts none and has no such note.
//
// The kernel's counters are the machine's: the server with a normal
// backlog is measured first, before this test overflows any queue, and
// again (up to three times) when another process on the machine
// overflowed its own meanwhile.
func TestListenQueueOverflow(t *testing.T) {
	t.Parallel()
	_, _, f := testpki.ServerFiles(t)

	normal, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveOn(t, normal, f)
	p := listenPlan(normal.Addr().String(), f.CA)
	clean := false
	for try := 0; try < 3 && !clean; try++ {
		rec := run(t, p)[0]
		switch n := listenNote(&rec); {
		case rec.ListenOverflows == nil || rec.ListenDrops == nil:
			t.Fatalf("listen_overflows %v, listen_drops %v: want them counted for a target on loopback", rec.ListenOverflows, rec.ListenDrops)
		case (*rec.ListenOverflows > 0 || *rec.ListenDrops > 0) != (n != ""):
			t.Fatalf("listen_overflows %d, listen_drops %d with note %q: want a note exactly when one is above 0", *rec.ListenOverflows, *rec.ListenDrops, n)
		case *rec.ListenOverflows == 0 && *rec.ListenDrops == 0:
			clean = true
		default:
			t.Logf("try %d: another listener on the machine dropped connections meanwhile (%d)", try+1, *rec.ListenDrops)
		}
	}
	if !clean {
		t.Fatal("every case against a server with a normal backlog counted listen-queue drops")
	}

	slow := slowAccepter{Listener: backlogListener(t, 1), every: 50 * time.Millisecond}
	serveOn(t, slow, f)
	addr := slow.Addr().String()
	t.Run("measured", func(t *testing.T) {
		t.Parallel()
		p := listenPlan(addr, f.CA)
		p.MaxErrorRate = 1 // the timeouts are expected: keep the record
		rec := run(t, p)[0]
		if rec.ListenOverflows == nil || *rec.ListenOverflows == 0 || rec.ListenDrops == nil || *rec.ListenDrops < *rec.ListenOverflows {
			t.Fatalf("listen_overflows %v, listen_drops %v: want overflows above 0, and drops at least as many", rec.ListenOverflows, rec.ListenDrops)
		}
		n := listenNote(&rec)
		t.Logf("listen_overflows %d, listen_drops %d; note: %s", *rec.ListenOverflows, *rec.ListenDrops, n)
		for _, want := range []string{"the server's listen queue overflowed", "its accept backlog is smaller than the concurrency, or it accepts too slowly", "connections waited for the kernel to retransmit their SYN"} {
			if !strings.Contains(n, want) {
				t.Errorf("note %q: want it to say %q (notes: %q)", n, want, rec.Notes)
			}
		}
	})
	t.Run("failed in warm-up", func(t *testing.T) {
		t.Parallel()
		p := listenPlan(addr, f.CA)
		p.Warmup = 1
		err := runner.Run(context.Background(), p, func(*results.Record) error { return nil })
		var fc *runner.FailedCases
		if !errors.As(err, &fc) || len(fc.Errs) != 1 {
			t.Fatalf("error %v: want one failed case", err)
		}
		t.Logf("one line: %s\ncase: %v", fc.Error(), fc.Errs[0])
		if line := fc.Error(); !strings.Contains(line, "listen queue overflowed") {
			t.Errorf("one-line reason %q does not name the listen queue", line)
		}
		// The failed connections' gate stops it, as a rule; on a machine
		// slow enough that every connection timed out, the wave's.
		var lo *measure.ListenOverflowError
		msg := fc.Errs[0].Error()
		if !errors.As(fc.Errs[0], &lo) || lo.Overflows == 0 || !strings.Contains(msg, "the server's listen queue overflowed") || !strings.Contains(msg, "retransmit their SYN") {
			t.Errorf("case error %q: want its reason followed by the listen queue's note", msg)
		}
	})
}
