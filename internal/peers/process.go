package peers

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/tail"
)

// StartTimeout bounds the wait for a peer to accept connections. It is the
// built-in server's own (30 s): a JVM starting on a saturated two-core
// machine (a load of 20) took more than 10 s to listen, and a peer that
// never starts still fails, only later.
const StartTimeout = 30 * time.Second

// process is a peer process started in a process group of its own, so
// that stopping it also ends the workers it forked (nginx), and nothing
// else.
type process struct {
	cmd    *exec.Cmd
	output *tail.Buffer
	done   chan struct{}
	err    error // exit status, valid after done is closed

	stopOnce sync.Once
	stopErr  error
}

func startProcess(cmd *exec.Cmd) (*process, error) {
	p := &process{cmd: cmd, output: &tail.Buffer{Max: 8 << 10}, done: make(chan struct{})}
	if cmd.Stdout == nil {
		cmd.Stdout = p.output
	}
	cmd.Stderr = p.output
	ownProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// PID is the process id (nginx: the master).
func (p *process) pid() int { return p.cmd.Process.Pid }

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop asks the process group to terminate, and kills it after grace.
func (p *process) stop(grace time.Duration) error {
	p.stopOnce.Do(func() {
		if !p.exited() {
			terminateGroup(p.cmd.Process)
		}
		select {
		case <-p.done:
		case <-time.After(grace):
			killGroup(p.cmd.Process)
			<-p.done
			p.stopErr = fmt.Errorf("%s did not stop within %s; killed", p.cmd.Path, grace)
		}
		// Workers that outlived their master (nginx after a SIGKILL)
		// are in the same group.
		killGroup(p.cmd.Process)
	})
	return p.stopErr
}

// failure explains a peer that did not come up, with its last output.
func (p *process) failure(what string, err error) error {
	out := strings.TrimSpace(p.output.String())
	if out != "" {
		return fmt.Errorf("%s: %v: %s", what, err, lastLines(out, 5))
	}
	return fmt.Errorf("%s: %v", what, err)
}

// waitAccepting dials addr until it accepts, the process exits or timeout
// passes.
func waitAccepting(p *process, addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		if p.exited() {
			return fmt.Errorf("exited before accepting connections (%v)", p.err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not accepting on %s after %s: %v", addr, timeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// freePort returns a port that was free on 127.0.0.1 a moment ago, for
// servers that cannot listen on port 0 and report the port they got.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// lookPath finds a tool on PATH or in the sbin directories that a
// non-root PATH often lacks (Debian installs nginx in /usr/sbin).
func lookPath(tool string) (string, error) {
	if p, err := exec.LookPath(tool); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/sbin", "/usr/local/sbin"} {
		p := dir + "/" + tool
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", tool, exec.ErrNotFound)
}

// ErrNotInstalled is returned (wrapped) when a peer's program is missing.
var ErrNotInstalled = exec.ErrNotFound

var errNoAddr = errors.New("no ACCEPT line with an address")

// FreeLoopback is a 127.0.0.1 address no one listened on a moment ago,
// for a server the test starts by a command that takes its port.
func FreeLoopback(t testing.TB) string {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", port)
}
