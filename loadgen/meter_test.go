package loadgen_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
)

// children lists the direct children of pid (Linux).
func children(pid int) []int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// procState is the state letter of /proc/PID/stat ("" once gone).
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return f[0]
}

// killingDialer dials like TCPDialer and, at its n-th dial, kills a
// process of the server's tree and waits until it has exited.
type killingDialer struct {
	client.TCPDialer
	n, victim int
	dials     *atomic.Int64
	once      *sync.Once
}

func (d killingDialer) Dial(ctx context.Context, deadline time.Time) (conn net.Conn, err error) {
	if d.dials.Add(1) == int64(d.n) {
		d.once.Do(func() {
			syscall.Kill(d.victim, syscall.SIGKILL)
			for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
				if s := procState(d.victim); s == "Z" || s == "" {
					break
				}
			}
		})
	}
	return d.TCPDialer.Dial(ctx, deadline)
}

// TestServerCPUBackwardsIsUnknown: a server process tree loses CPU time
// when a process of it dies and its busy child leaves the tree (a killed,
// unreaped child). The case's server CPU is then unknown, with a note
// saying why, never negative.
func TestServerCPUBackwardsIsUnknown(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process trees are read from /proc")
	}
	t.Parallel()
	// top (sleep) -> middle (sleep) -> spinner (a busy shell loop).
	cmd := exec.Command("sh", "-c", `sh -c 'while :; do :; done & exec sleep 120' & exec sleep 120`)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	top := cmd.Process.Pid
	var middle, spinner int
	t.Cleanup(func() {
		for _, p := range []int{spinner, middle, top} {
			if p > 0 {
				syscall.Kill(p, syscall.SIGKILL)
			}
		}
		cmd.Wait()
	})
	obs := measure.ProcessCPU{PID: top}
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the process tree did not start spinning (middle %d, spinner %d)", middle, spinner)
		}
		if c := children(top); len(c) == 1 && middle == 0 {
			middle = c[0]
		}
		if middle != 0 && spinner == 0 {
			if c := children(middle); len(c) == 1 {
				spinner = c[0]
			}
		}
		if snap, err := obs.Snapshot(); err == nil && spinner != 0 && snap.CPU >= 300*time.Millisecond {
			break
		}
	}

	s := startServer(t, nil)
	hc := s.handshakeCase("backwards", tls.VersionTLS13, false, 2)
	hc.Server = obs
	hc.Handshakes, hc.Warmup, hc.Iterations = 32, 1, 2
	// The middle process dies during the first measured iteration; its
	// child, the spinner, is handed to init with all its CPU time.
	hc.Dialer = killingDialer{TCPDialer: client.TCPDialer{Addr: s.addr}, n: 32 + 5, victim: middle, dials: new(atomic.Int64), once: new(sync.Once)}
	rec, err := loadgen.RunHandshakes(context.Background(), hc)
	if err != nil {
		t.Fatal(err)
	}
	if rec.ServerCPUUS != nil {
		t.Errorf("server CPU %v µs/hs after the tree lost a process's CPU time: want unknown", *rec.ServerCPUUS)
	}
	if notes := strings.Join(rec.Notes, "\n"); !strings.Contains(notes, "the server's CPU time went backwards") {
		t.Errorf("notes %q do not say why the server's CPU is unknown", notes)
	}
	if rec.ClientCPUUS == nil {
		t.Error("the client's CPU became unknown too")
	}
	if err := rec.Validate(); err != nil {
		t.Errorf("the record does not validate: %v", err)
	}
}
