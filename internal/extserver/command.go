package extserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tlsbench/tlsbench/internal/callgrind"
	"github.com/tlsbench/tlsbench/internal/tail"
	"github.com/tlsbench/tlsbench/internal/usage"
	"github.com/tlsbench/tlsbench/measure"
)

// Options say what to start and where it will listen.
type Options struct {
	// Command is the shell command (run by /bin/sh -c) that starts the
	// server in the foreground: it must not daemonize (nginx: -g
	// 'daemon off;'), or the server is not its process's descendant.
	Command string
	// Addr is the host:port it listens on, dialled until it accepts.
	Addr string
	// Instructions runs it under callgrind and counts its instructions.
	Instructions bool
	// Ready bounds the wait for its first accepted connection (default
	// ReadyTimeout; callgrind starts a program about 50 times slower).
	Ready time.Duration
}

// ReadyTimeout is how long Start waits for the server by default.
const ReadyTimeout = 60 * time.Second

// stopGrace is how long Stop waits for the server to exit after SIGTERM
// before it kills what is left: callgrind writes its last dumps then.
const stopGrace = 10 * time.Second

// Server is a started server.
type Server struct {
	cmd *exec.Cmd
	// stdin is held open until Stop: a server that reads its input
	// (openssl s_server without -www) quits at its end.
	stdin  io.WriteCloser
	stderr *tail.Buffer
	exited chan struct{}
	dir    string // callgrind's files; "" when not counted
	tree   *callgrind.Tree
	// stopping is set by Stop: the exit that follows was asked for.
	stopping atomic.Bool
}

// Start starts the server and returns once it accepts connections on
// Addr, or with why it did not: it exited (with its last line on
// stderr), or did not accept within Ready.
func Start(ctx context.Context, o Options) (*Server, error) {
	if strings.TrimSpace(o.Command) == "" {
		return nil, errors.New("no command given")
	}
	s := &Server{stderr: &tail.Buffer{Max: 4096}, exited: make(chan struct{})}
	path, argv := "/bin/sh", []string{"-c", o.Command}
	if o.Instructions {
		dir, err := os.MkdirTemp("", "tlsbench-callgrind-server-")
		if err != nil {
			return nil, err
		}
		s.dir, s.tree = dir, &callgrind.Tree{Dir: dir}
		if err := callgrind.PrepareDir(dir); err != nil {
			s.removeDir()
			return nil, err
		}
		if path, argv, err = callgrind.ShellCommand(dir, o.Command); err != nil {
			s.removeDir()
			return nil, err
		}
	}
	s.cmd = exec.Command(path, argv...)
	s.cmd.Stdout, s.cmd.Stderr = s.stderr, s.stderr
	// Its own process group: Stop ends the command's whole tree, and a
	// Ctrl-C at the terminal reaches tlsbench, which stops it in order.
	ownGroup(s.cmd)
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		s.removeDir()
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		s.removeDir()
		return nil, err
	}
	go func() { s.cmd.Wait(); close(s.exited) }()
	if err := s.waitReady(ctx, o); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// waitReady dials Addr until it accepts, the server exits, ctx ends or
// the wait times out.
func (s *Server) waitReady(ctx context.Context, o Options) error {
	wait := o.Ready
	if wait <= 0 {
		wait = ReadyTimeout
	}
	deadline := time.Now().Add(wait)
	for {
		c, err := net.DialTimeout("tcp", o.Addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("it exited (%v) before it accepted a connection on %s%s", s.cmd.ProcessState, o.Addr, s.lastLine())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("it did not accept a connection on %s within %v (does it listen there, in the foreground?)%s", o.Addr, wait, s.lastLine())
		}
	}
}

// lastLine is "; its last line on stderr: ..." or "".
func (s *Server) lastLine() string {
	if l := s.stderr.LastLine(); l != "" {
		return "; its last line on stderr: " + l
	}
	return ""
}

// PID is the process the command runs in (the shell, or valgrind running
// it), the root of the server's process tree.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// ServerPID implements measure.ServerProcess.
func (s *Server) ServerPID() int { return s.PID() }

// Snapshot implements measure.ServerObserver: the process tree's CPU
// and, counted, its instructions (nil when a dump failed: that count is
// then unknown, never estimated).
func (s *Server) Snapshot() (measure.ServerSnapshot, error) {
	select {
	case <-s.exited:
		if err := s.Exited(); err != nil {
			return measure.ServerSnapshot{}, err
		}
		return measure.ServerSnapshot{}, errors.New("the server was stopped")
	default:
	}
	cpu, err := usage.ProcessTreeCPU(s.PID())
	if err != nil {
		return measure.ServerSnapshot{}, err
	}
	snap := measure.ServerSnapshot{HasCPU: true, CPU: cpu, CPUTick: usage.ProcTick}
	if s.tree != nil {
		if pids, err := usage.ProcessTree(s.PID()); err == nil {
			if n, err := s.tree.Instructions(context.Background(), pids); err == nil {
				snap.Instructions = &n
			}
		}
	}
	return snap, nil
}

// Done is closed once the command has exited.
func (s *Server) Done() <-chan struct{} { return s.exited }

// Exited is nil while the command runs or after Stop stopped it, and
// once it has ended by itself, how it ended and its last line on stderr.
func (s *Server) Exited() error {
	select {
	case <-s.exited:
	default:
		return nil
	}
	if s.stopping.Load() {
		return nil
	}
	return fmt.Errorf("the server started by its command exited (%v)%s", s.cmd.ProcessState, s.lastLine())
}

// CountError is why the server's instructions are not known, nil when
// they are or it is not counted.
func (s *Server) CountError() error {
	if s.tree == nil {
		return nil
	}
	return s.tree.Err()
}

// Stop ends the server: SIGTERM to its process group, then, after
// stopGrace, SIGKILL to what is left. It returns nil once it has
// exited, whatever its exit status (it was asked to stop).
func (s *Server) Stop() error {
	s.stopping.Store(true)
	defer s.removeDir()
	defer s.stdin.Close()
	signalGroup(s.cmd, false)
	select {
	case <-s.exited:
	case <-time.After(stopGrace):
		signalGroup(s.cmd, true)
		<-s.exited
	}
	// Whatever of the group outlived the shell.
	signalGroup(s.cmd, true)
	return nil
}

func (s *Server) removeDir() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}
