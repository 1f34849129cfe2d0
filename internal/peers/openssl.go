package peers

import (
	"context"
	"fmt"
	"github.com/tlsbench/tlsbench/internal/procid"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// OpenSSLServer is a running `openssl s_server`.
type OpenSSLServer struct {
	// Addr is the 127.0.0.1:port it accepts on.
	Addr string
	// Args are the arguments it was started with.
	Args []string
	p    *process
}

// StartOpenSSL starts `openssl s_server ARGS -accept 127.0.0.1:0` and
// waits until it accepts. The arguments are s_server's own: -cert, -key,
// -www (answer GET requests, so that a client can read past the
// handshake), -tls1_2, -tls1_3, -no_ticket, -Verify N, -CAfile...
//
// OpenSSL 3 listens on the port 0 asks for and prints "ACCEPT
// 127.0.0.1:PORT" when ready; that line is the readiness signal, so no
// probe connection reaches the server before the test's own. ctx ending
// stops the server.
func StartOpenSSL(ctx context.Context, args ...string) (*OpenSSLServer, error) {
	return StartOpenSSLEnv(ctx, nil, args...)
}

// StartOpenSSLEnv is StartOpenSSL with env ("NAME=value") added to the
// server's environment: OPENSSL_CONF=FILE, for instance, with
// -ssl_config SECTION, sets what s_server has no flag for (Options =
// -ExtendedMasterSecret turns RFC 7627 off).
func StartOpenSSLEnv(ctx context.Context, env []string, args ...string) (*OpenSSLServer, error) {
	bin, err := lookPath("openssl")
	if err != nil {
		return nil, err
	}
	if slices.Contains(args, "-accept") || slices.Contains(args, "-port") {
		return nil, fmt.Errorf("s_server arguments must not choose the port: it listens on a free 127.0.0.1 port")
	}
	full := append([]string{"s_server"}, args...)
	full = append(full, "-accept", "127.0.0.1:0")
	cmd := exec.Command(bin, full...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	// Without -www, s_server sends what it reads from stdin to the
	// client and quits at end of input: stdin is a pipe held open until
	// the server stops.
	// (An *os.File, so that exec copies nothing and Wait does not wait
	// for the pipe to close.)
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdin = stdinR
	p, err := startProcess(cmd)
	stdinR.Close()
	if err != nil {
		stdinW.Close()
		return nil, fmt.Errorf("starting openssl s_server: %w", err)
	}
	s := &OpenSSLServer{Args: args, p: p}

	go func() {
		<-p.done
		pw.Close()
		stdinW.Close()
	}()
	addr, err := acceptLine(ctx, p, pr, "openssl s_server "+strings.Join(args, " "))
	if err != nil {
		s.Stop()
		return nil, err
	}
	s.Addr = addr
	go func() {
		select {
		case <-ctx.Done():
			s.Stop()
		case <-p.done:
		}
	}()
	return s, nil
}

// PID is the s_server process id.
func (s *OpenSSLServer) PID() int { return s.p.pid() }

// Output is the last of what s_server printed.
func (s *OpenSSLServer) Output() string { return s.p.output.String() }

// Stop terminates s_server and waits for it.
func (s *OpenSSLServer) Stop() error { return s.p.stop(3 * time.Second) }

// OpenSSLVersion is `openssl version`, e.g. "OpenSSL 3.0.15 3 Sep 2024".
func OpenSSLVersion() (string, error) {
	bin, err := lookPath("openssl")
	if err != nil {
		return "", err
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		return "", fmt.Errorf("openssl version: %w", err)
	}
	return procid.FirstLine(out), nil
}
