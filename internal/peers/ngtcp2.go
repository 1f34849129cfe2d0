package peers

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// NGTCP2Config is what an ngtcp2 example server (Debian's ngtcp2-server:
// gtlsserver, HTTP/3 over QUIC with GnuTLS) serves: its certificate and
// key (PEM), and the directory of the files it answers with (default: a
// temporary one holding an index.html).
type NGTCP2Config struct {
	Cert, Key string
	Dir       string
}

// NGTCP2Server is a running gtlsserver.
type NGTCP2Server struct {
	// Addr is the 127.0.0.1:port it accepts QUIC on (UDP).
	Addr string
	p    *process
	dir  string // a document root made for it, removed on Stop
}

// StartNGTCP2 starts gtlsserver on a free UDP port of 127.0.0.1 and
// waits until it has bound it. It speaks HTTP/3 only (ALPN h3), issues
// session tickets and takes early data. ctx ending stops it.
func StartNGTCP2(ctx context.Context, c NGTCP2Config) (*NGTCP2Server, error) {
	bin, err := lookPath("gtlsserver")
	if err != nil {
		return nil, err
	}
	s := &NGTCP2Server{}
	dir := c.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "tlsbench-ngtcp2-"); err != nil {
			return nil, err
		}
		s.dir = dir
		if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("tlsbench\n"), 0o644); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	port, err := freeUDPPort()
	if err != nil {
		return nil, err
	}
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cmd := exec.Command(bin, "--quiet", "--htdocs", dir, "127.0.0.1", strconv.Itoa(port), c.Key, c.Cert)
	if s.p, err = startProcess(cmd); err != nil {
		os.RemoveAll(s.dir)
		return nil, err
	}
	if err := waitBoundUDP(s.p, s.Addr, StartTimeout); err != nil {
		s.Stop()
		return nil, s.p.failure("gtlsserver", err)
	}
	context.AfterFunc(ctx, func() { s.Stop() })
	return s, nil
}

// PID is the server's process id.
func (s *NGTCP2Server) PID() int { return s.p.pid() }

// Output is the last of what it wrote.
func (s *NGTCP2Server) Output() string { return s.p.output.String() }

// Stop ends the server and removes the document root made for it.
func (s *NGTCP2Server) Stop() error {
	err := s.p.stop(3 * time.Second)
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
	return err
}

// freeUDPPort returns a UDP port that was free on 127.0.0.1 a moment
// ago, for gtlsserver, which takes its port as an argument.
func freeUDPPort() (int, error) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer pc.Close()
	return pc.LocalAddr().(*net.UDPAddr).Port, nil
}

// waitBoundUDP waits until addr's UDP port is taken (by the server: a
// QUIC server announces nothing, and a probe packet would be a
// connection of its own), the process exits or timeout passes.
func waitBoundUDP(p *process, addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		pc, err := net.ListenPacket("udp", addr)
		if err == nil {
			pc.Close()
		} else if errors.Is(err, syscall.EADDRINUSE) {
			return nil
		}
		if p.exited() {
			return fmt.Errorf("exited before binding %s (%v)", addr, p.err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not bound to %s after %s", addr, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
