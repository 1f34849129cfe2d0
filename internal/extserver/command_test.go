package extserver_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/extserver"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/internal/procid"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/measure"
)

// sServer is the command of an openssl s_server at addr, and the pool
// that verifies it. Without -www: it reads its standard input, which
// Start holds open.
func sServer(t *testing.T, addr string) (string, *x509.CertPool) {
	t.Helper()
	bin := peers.Require(t, "openssl")
	ca, _, files := testpki.ServerFiles(t)
	pool := x509.NewCertPool()
	pool.AddCert(ca.Root())
	return fmt.Sprintf("%s s_server -quiet -naccept 100000 -accept %s -cert %s -key %s", bin, addr, files.Cert, files.Key), pool
}

// handshakes makes n full TLS 1.3 handshakes with the server at addr.
func handshakes(t *testing.T, addr string, pool *x509.CertPool, n int) {
	t.Helper()
	for range n {
		c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, ServerName: "localhost", MinVersion: tls.VersionTLS13})
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
}

// groupGone reports whether no process of pid's group is left, waiting
// a little for the killed to die.
func groupGone(pid int) bool {
	for range 50 {
		if errors.Is(syscall.Kill(-pid, 0), syscall.ESRCH) {
			return true
		}
		time.Sleep(40 * time.Millisecond)
	}
	return false
}

// TestStartWaitsUntilItAccepts: a real server started by its command
// accepts connections when Start returns, its CPU is sampled from its
// process tree, the process that listens is the server under the shell,
// and Stop ends its whole process group (a sleep it left in the
// background too).
func TestStartWaitsUntilItAccepts(t *testing.T) {
	addr := peers.FreeLoopback(t)
	cmd, pool := sServer(t, addr)
	// Not the command's last: the shell runs it as its child.
	s, err := extserver.Start(context.Background(), extserver.Options{Command: "sleep 300 & " + cmd + "; exit", Addr: addr})
	if err != nil {
		t.Fatal(err)
	}
	handshakes(t, addr, pool, 3)
	if l := s.ListenerPID(); l == s.PID() {
		t.Errorf("ListenerPID() = the shell's pid %d, want its child that listens", l)
	} else if name, _, err := procid.Identify(l); err != nil || name != "openssl" {
		t.Errorf("ListenerPID() = %d, which runs %q (%v), want openssl", l, name, err)
	}
	snap, err := s.Snapshot()
	if err != nil || !snap.HasCPU || snap.Instructions != nil {
		t.Errorf("Snapshot() = %+v, %v; want its CPU and no instruction count", snap, err)
	}
	var _ measure.ServerProcess = s
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if !groupGone(s.PID()) {
		t.Errorf("process group %d still has processes after Stop", s.PID())
	}
	if _, err := s.Snapshot(); err == nil {
		t.Error("Snapshot after Stop: no error, want one saying the server exited")
	}
}

// TestStartSaysWhyItExited: a command that fails says so, with its last
// line on stderr.
func TestStartSaysWhyItExited(t *testing.T) {
	_, err := extserver.Start(context.Background(), extserver.Options{Command: "echo 'bad config line 3' >&2; exit 3", Addr: peers.FreeLoopback(t)})
	if err == nil || !strings.Contains(err.Error(), "exited (exit status 3)") || !strings.Contains(err.Error(), "its last line on stderr: bad config line 3") {
		t.Fatalf("Start() = %v, want the exit and its last line", err)
	}
}

// TestStartGivesUpOnAServerThatNeverListens: a command that runs but
// never accepts at the address is stopped after Ready, with its group.
func TestStartGivesUpOnAServerThatNeverListens(t *testing.T) {
	start := time.Now()
	_, err := extserver.Start(context.Background(), extserver.Options{Command: "echo listening elsewhere; sleep 300", Addr: peers.FreeLoopback(t), Ready: 700 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "did not accept a connection") || !strings.Contains(err.Error(), "listening elsewhere") {
		t.Fatalf("Start() = %v, want a timeout naming its last line", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Start took %v to give up, want about 0.7 s", d)
	}
}

// TestCountsAnExternalServersInstructions: OpenSSL's s_server under
// callgrind, read from outside by vgdb: after 5 handshakes to warm it
// (its first ones count 2% more), two spans of 5 full handshakes each
// count millions of instructions a handshake, within 1% of each other
// (the dumps are valgrind's work, not the server's).
func TestCountsAnExternalServersInstructions(t *testing.T) {
	addr := peers.FreeLoopback(t)
	cmd, pool := sServer(t, addr)
	peers.Require(t, "vgdb") // valgrind's, which counts from outside
	s, err := extserver.Start(context.Background(), extserver.Options{Command: cmd, Addr: addr, Instructions: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	handshakes(t, addr, pool, 5)
	var counts []int64
	for i := range 3 {
		if i > 0 {
			handshakes(t, addr, pool, 5)
		}
		snap, err := s.Snapshot()
		if err != nil || snap.Instructions == nil {
			t.Fatalf("reading %d: %+v, %v; want a count", i, snap, err)
		}
		counts = append(counts, *snap.Instructions)
	}
	first, second := float64(counts[1]-counts[0])/5, float64(counts[2]-counts[1])/5
	t.Logf("instructions per handshake: %.0f, %.0f", first, second)
	if first < 1e6 || second < 1e6 || math.Abs(second/first-1) > 0.01 {
		t.Errorf("instructions per handshake %.0f then %.0f: want millions each, within 1%%", first, second)
	}
}

// TestRefusesAServerWhoseWorkersChangeUser: nginx started as root runs
// its worker as nobody, whose count valgrind's gdb server cannot hand
// to root (asking hangs, and the timeout killed the worker): Start
// refuses it at once, naming the process, the user and the fix, and
// leaves nothing running; with the workers as root (user root;) it is
// counted.
func TestRefusesAServerWhoseWorkersChangeUser(t *testing.T) {
	nginx := peers.Require(t, "nginx")
	peers.Require(t, "vgdb")
	if os.Geteuid() != 0 {
		t.Skip("nginx changes its workers' user only when started as root")
	}
	_, _, files := testpki.ServerFiles(t)
	for _, asRoot := range []bool{false, true} {
		addr := peers.FreeLoopback(t)
		dir := t.TempDir()
		conf := fmt.Sprintf("pid %[1]s/nginx.pid;\nerror_log %[1]s/error.log;\nworker_processes 1;\nevents {}\nhttp {\n access_log off;\n server {\n  listen %[2]s ssl;\n  ssl_certificate %[3]s;\n  ssl_certificate_key %[4]s;\n  location / { return 200 \"ok\\n\"; }\n }\n}\n", dir, addr, files.Cert, files.Key)
		if asRoot {
			conf = "user root;\n" + conf
		}
		if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := fmt.Sprintf("%s -p %s -c nginx.conf -g 'daemon off;'", nginx, dir)
		s, err := extserver.Start(context.Background(), extserver.Options{Command: cmd, Addr: addr, Instructions: true})
		if asRoot {
			if err != nil {
				t.Fatalf("nginx with its workers as root: %v", err)
			}
			snap, err := s.Snapshot()
			s.Stop()
			if err != nil || snap.Instructions == nil {
				t.Fatalf("nginx with its workers as root: reading %+v, %v; want a count", snap, err)
			}
			continue
		}
		if err == nil {
			s.Stop()
			t.Fatal("nginx with a worker as nobody started counted: want it refused")
		}
		for _, want := range []string{"runs as user nobody", "user root;"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still accepts after the refusal: nginx was left running", addr)
		}
	}
}
