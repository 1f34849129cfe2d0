//go:build linux

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// target is one tlsbench child process under attack (or an origin behind
// the proxy).
type target struct {
	kind     string // serve, serve --quic or proxy
	cmd      *exec.Cmd
	addr     string // the address it listens on
	ca       string // the CA certificate clients must trust
	identity [2]string
	exited   chan struct{}
	exitErr  error
	logLines atomic.Int64 // lines it wrote on stderr
	origin   *target      // behind a proxy
	// originPort is the port of the harness's own origin behind the
	// proxy (the stalled relay), 0 when there is none.
	harnessOrigin string
}

var (
	listenRE   = regexp.MustCompile(`listening on (\S+)`)
	caRE       = regexp.MustCompile(`^CA certificate: (.+)$`)
	identityRE = regexp.MustCompile(`(\S+\.pem),(\S+\.pem)`)
)

// startChild starts bin with args and waits for the lines that say where
// it listens and which CA to trust.
func startChild(cfg *config, kind string, args []string) (*target, error) {
	cmd := exec.Command(cfg.bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t := &target{kind: kind, cmd: cmd, exited: make(chan struct{})}
	go t.countLines(errPipe)
	ready := make(chan error, 1)
	go t.readStart(out, ready)
	go func() { t.exitErr = cmd.Wait(); close(t.exited) }()
	select {
	case err = <-ready:
	case <-time.After(20 * time.Second):
		err = errors.New("no address printed within 20 s")
	}
	if err != nil {
		t.stop()
		return nil, fmt.Errorf("%s %s: %v", filepath.Base(cfg.bin), strings.Join(args, " "), err)
	}
	return t, nil
}

// readStart parses the start lines, then drains stdout so that the child
// never blocks on a full pipe.
func (t *target) readStart(r io.Reader, ready chan<- error) {
	sc := bufio.NewScanner(r)
	sent := false
	for sc.Scan() {
		line := sc.Text()
		if m := listenRE.FindStringSubmatch(line); m != nil && t.addr == "" {
			t.addr = m[1]
			if id := identityRE.FindStringSubmatch(line); id != nil {
				t.identity = [2]string{id[1], id[2]}
			}
		}
		if m := caRE.FindStringSubmatch(line); m != nil && !sent {
			t.ca = m[1]
			sent = true
			ready <- nil
		}
	}
	if !sent {
		ready <- errors.New("exited before printing its address")
	}
}

// countLines counts what the child logs: rejections are logged one line
// each, rate-limited, and the count shows whether the limit holds.
func (t *target) countLines(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		t.logLines.Add(1)
	}
	io.Copy(io.Discard, r)
}

func (t *target) pid() int { return t.cmd.Process.Pid }

func (t *target) alive() bool {
	select {
	case <-t.exited:
		return false
	default:
		return true
	}
}

// stop ends the child (and its origin) with Ctrl-C, its normal way to
// end, and kills it if it does not go within 5 s.
func (t *target) stop() {
	if t == nil {
		return
	}
	if t.alive() {
		t.cmd.Process.Signal(os.Interrupt)
		select {
		case <-t.exited:
		case <-time.After(5 * time.Second):
			t.cmd.Process.Kill()
			<-t.exited
		}
	}
	t.origin.stop()
}

// died describes how the child ended, for the outcome.
func (t *target) died() string {
	var ee *exec.ExitError
	if errors.As(t.exitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "DIED (" + ws.Signal().String() + ")"
		}
		return fmt.Sprintf("DIED (exit %d)", ee.ExitCode())
	}
	return "DIED (exit 0)"
}

// startServe starts tlsbench serve (with --quic when quic) on a free
// loopback port, with its test PKI in dir.
func startServe(cfg *config, quic bool, dir string, extra ...string) (*target, error) {
	args := []string{"serve", "--listen", "127.0.0.1:0", "--pki-dir", dir}
	kind := "serve"
	if quic {
		args = append(args, "--quic")
		kind = "serve --quic"
	}
	args = append(args, extra...)
	args = append(args, cfg.serveFlags...)
	return startChild(cfg, kind, args)
}

// startProxy starts a serve child as the proxy's origin on loopback,
// then the proxy, with the origin's port (and the harness origin's, and
// 443 for the forbidden destinations) allowed. Its destinations are left
// to its defaults (a proxy that judges them reaches this machine), so
// that what it answers a forbidden one is its default's answer.
func startProxy(cfg *config, o attackOpts) (*target, error) {
	origin, err := startServe(cfg, false, filepath.Join(cfg.tmp, "origin-pki"))
	if err != nil {
		return nil, err
	}
	ports := []string{"443", port(origin.addr)}
	var harnessOrigin string
	if o.harnessOrigin != nil {
		if harnessOrigin, err = o.harnessOrigin(origin); err != nil {
			origin.stop()
			return nil, err
		}
		ports = append(ports, port(harnessOrigin))
	}
	args := []string{"proxy", "--listen", "127.0.0.1:0", "--pki-dir", filepath.Join(cfg.tmp, "proxy-pki"),
		"--origin-ca", origin.ca, "--connect-ports", strings.Join(ports, ",")}
	args = append(args, o.proxyArgs...)
	args = append(args, cfg.proxyFlags...)
	p, err := startChild(cfg, "proxy", args)
	if err != nil {
		origin.stop()
		return nil, err
	}
	p.origin, p.harnessOrigin = origin, harnessOrigin
	return p, nil
}

func port(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}

// usage is a process's CPU and memory from /proc.
type usage struct {
	cpu      time.Duration // user + system
	hwm, rss int64         // bytes
}

// readUsage reads /proc/PID/stat (utime, stime in clock ticks of 1/100 s
// on Linux) and /proc/PID/status (VmHWM, VmRSS).
func readUsage(pid int) (usage, error) {
	var u usage
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return u, err
	}
	// The command name may hold spaces: fields count from its ')'.
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(f) < 13 {
		return u, errors.New("short /proc stat")
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	u.cpu = time.Duration(ut+st) * 10 * time.Millisecond
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, _ := strings.Cut(line, ":")
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmHWM":
			u.hwm = kb << 10
		case "VmRSS":
			u.rss = kb << 10
		}
	}
	return u, nil
}

// sampler keeps the last usage read, every 100 ms: a target that dies
// takes its /proc entry with it, and its last figures are still wanted.
type sampler struct {
	mu   sync.Mutex
	last usage
	stop chan struct{}
	done chan struct{}
}

func startSampler(pid int) *sampler {
	s := &sampler{stop: make(chan struct{}), done: make(chan struct{})}
	s.sample(pid)
	go func() {
		defer close(s.done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-s.stop:
				s.sample(pid)
				return
			case <-tick.C:
				s.sample(pid)
			}
		}
	}()
	return s
}

func (s *sampler) sample(pid int) {
	if u, err := readUsage(pid); err == nil {
		s.mu.Lock()
		s.last = u
		s.mu.Unlock()
	}
}

// end stops sampling and returns the last usage read.
func (s *sampler) end() usage {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}
