package peers

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	// The port is chosen free, and another process may take it before
	// gtlsserver binds it: then another is tried.
	for attempt := 1; ; attempt++ {
		port, err := freeUDPPort()
		if err != nil {
			os.RemoveAll(s.dir)
			return nil, err
		}
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		cmd := exec.Command(bin, "--quiet", "--htdocs", dir, "127.0.0.1", strconv.Itoa(port), c.Key, c.Cert)
		if s.p, err = startProcess(cmd); err != nil {
			os.RemoveAll(s.dir)
			return nil, err
		}
		err = waitBoundUDP(s.p, port, StartTimeout)
		if err == nil {
			break
		}
		s.p.stop(3 * time.Second)
		if attempt == 3 || !strings.Contains(s.p.output.String(), "Could not bind") {
			os.RemoveAll(s.dir)
			return nil, s.p.failure("gtlsserver", err)
		}
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

// waitBoundUDP waits until p has a UDP socket bound to 127.0.0.1:port (a
// QUIC server announces nothing, and a probe packet would be a
// connection of its own), the process exits or timeout passes. It reads
// the kernel's socket table rather than trying to bind the port itself,
// which would take the port from the server in the moment it binds; and
// the socket must be p's, not another process's that took the port.
func waitBoundUDP(p *process, port int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		bound, err := udpBoundBy(p.pid(), port)
		switch {
		case err != nil:
			return err
		case bound:
			return nil
		case p.exited():
			return fmt.Errorf("exited before binding 127.0.0.1:%d (%v)", port, p.err)
		case time.Now().After(deadline):
			return fmt.Errorf("not bound to 127.0.0.1:%d after %s", port, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// udpBoundBy says whether process pid holds a socket that /proc/net/udp
// lists as bound to 127.0.0.1:port. The table prints the local address
// as the IPv4 address's bytes in host order, then the port, both in
// hex; its tenth column is the socket's inode, which the process's
// descriptors name as socket:[inode].
func udpBoundBy(pid, port int) (bool, error) {
	table, err := os.ReadFile("/proc/net/udp")
	if err != nil {
		return false, fmt.Errorf("reading the UDP sockets: %w", err)
	}
	want := fmt.Sprintf("%08X:%04X", binary.NativeEndian.Uint32(net.IPv4(127, 0, 0, 1).To4()), port)
	sockets := map[string]bool{}
	for _, line := range strings.Split(string(table), "\n")[1:] {
		if f := strings.Fields(line); len(f) > 9 && f[1] == want {
			sockets["socket:["+f[9]+"]"] = true
		}
	}
	if len(sockets) == 0 {
		return false, nil
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return false, nil // exited: the caller sees it
	}
	for _, fd := range fds {
		if target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && sockets[target] {
			return true, nil
		}
	}
	return false, nil
}
