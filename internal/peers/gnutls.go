package peers

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// GnuTLSConfig is what a `gnutls-serv` serves.
type GnuTLSConfig struct {
	// Cert and Key are the server's chain and key, PEM.
	Cert, Key string
	// Mode is "http" (--http: answers GET with a page describing the
	// session) or "echo" (--echo: every line read is written back).
	// Default "echo".
	Mode string
	// Args are further gnutls-serv arguments (--priority, --noticket,
	// --require-client-cert --x509cafile ...). Unless they ask for a
	// client certificate, none is requested.
	Args []string
}

// GnuTLSServer is a running gnutls-serv.
type GnuTLSServer struct {
	// Addr is the 127.0.0.1:port the tests reach it on. gnutls-serv has
	// no option to choose its address and listens on every one of the
	// port; the tests connect through loopback only.
	Addr string
	p    *process
}

// StartGnuTLS starts gnutls-serv on a free port and waits until it
// accepts on 127.0.0.1. ctx ending stops it.
func StartGnuTLS(ctx context.Context, c GnuTLSConfig) (*GnuTLSServer, error) {
	bin, err := lookPath("gnutls-serv")
	if err != nil {
		return nil, err
	}
	args, err := c.args()
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &GnuTLSServer{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
	args = append(args, "--port", strconv.Itoa(port))
	if s.p, err = startProcess(exec.Command(bin, args...)); err != nil {
		return nil, fmt.Errorf("starting gnutls-serv: %w", err)
	}
	if err := waitAccepting(s.p, s.Addr, StartTimeout); err != nil {
		s.Stop()
		return nil, s.p.failure("gnutls-serv "+strings.Join(args, " "), err)
	}
	context.AfterFunc(ctx, func() { s.Stop() })
	return s, nil
}

func (c GnuTLSConfig) args() ([]string, error) {
	mode := c.Mode
	if mode == "" {
		mode = "echo"
	}
	if mode != "echo" && mode != "http" {
		return nil, fmt.Errorf("gnutls-serv mode %q: want echo or http", mode)
	}
	if slices.Contains(c.Args, "--port") || slices.Contains(c.Args, "-p") {
		return nil, fmt.Errorf("gnutls-serv arguments must not choose the port: it gets a free one")
	}
	args := []string{"--quiet", "--" + mode, "--x509certfile", c.Cert, "--x509keyfile", c.Key}
	if !slices.Contains(c.Args, "--require-client-cert") && !slices.Contains(c.Args, "-r") &&
		!slices.Contains(c.Args, "--verify-client-cert") {
		args = append(args, "--disable-client-cert")
	}
	return append(args, c.Args...), nil
}

// PID is the gnutls-serv process id.
func (s *GnuTLSServer) PID() int { return s.p.pid() }

// Output is the last of what gnutls-serv printed.
func (s *GnuTLSServer) Output() string { return s.p.output.String() }

// Stop terminates gnutls-serv and waits for it.
func (s *GnuTLSServer) Stop() error { return s.p.stop(3 * time.Second) }

// GnuTLSVersion is the first line of `gnutls-serv --version`.
func GnuTLSVersion() (string, error) {
	bin, err := lookPath("gnutls-serv")
	if err != nil {
		return "", err
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("gnutls-serv --version: %v", err)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line, nil
}
