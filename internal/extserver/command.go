package extserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"strconv"
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
	cmd  *exec.Cmd
	addr string
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
	s := &Server{addr: o.Addr, stderr: &tail.Buffer{Max: 4096}, exited: make(chan struct{})}
	path, argv := "/bin/sh", []string{"-c", o.Command}
	if o.Instructions {
		dir, err := os.MkdirTemp("", "tlsbench-callgrind-server-")
		if err != nil {
			return nil, err
		}
		s.dir, s.tree = dir, &callgrind.Tree{Dir: dir}
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
	if s.tree != nil {
		// The first reading, before any case: a server whose count
		// cannot be had is refused now, not found out case by case.
		s.settle()
		if _, err := s.count(); err != nil {
			s.Stop()
			return nil, fmt.Errorf("its instructions cannot be counted: %w", err)
		}
	}
	return s, nil
}

// count reads the instructions of the server's process tree since the
// first reading.
func (s *Server) count() (int64, error) {
	pids, err := usage.ProcessTree(s.PID())
	if err != nil {
		return 0, err
	}
	if err := otherUser(pids); err != nil {
		return 0, err
	}
	n, err := s.tree.Instructions(context.Background(), pids)
	if err != nil {
		// A process that changed its user since (a worker just
		// forked) is why the request hung.
		if uerr := otherUser(pids); uerr != nil {
			return 0, uerr
		}
	}
	return n, err
}

// otherUser refuses a process of pids that runs as another user than
// this one: valgrind's gdb server in a process that changed its user (an
// nginx worker as nobody) cannot open the pipes its count is asked
// through, made before, so that the request hangs, and its timeout can
// kill the process.
func otherUser(pids []int) error {
	for _, pid := range pids {
		if uid, err := usage.EffectiveUID(pid); err == nil && uid != os.Geteuid() {
			me := userName(os.Geteuid())
			return fmt.Errorf("process %d of the server runs as user %s, whose count valgrind cannot hand to %s: run all of its processes as %s (nginx: user %s; in its configuration)", pid, userName(uid), me, me, me)
		}
	}
	return nil
}

// settle waits, up to settleWait, until the server's processes and
// their users have stayed the same for a poll: a server that accepts
// may still be starting its workers, and a worker still changing its
// user would hang the first reading instead of being refused.
func (s *Server) settle() {
	var last string
	for deadline := time.Now().Add(settleWait); time.Now().Before(deadline); time.Sleep(settlePoll) {
		pids, err := usage.ProcessTree(s.PID())
		if err != nil {
			return
		}
		now := fmt.Sprint(pids)
		for _, pid := range pids {
			uid, _ := usage.EffectiveUID(pid)
			now += fmt.Sprintf(" %d", uid)
		}
		if now == last {
			return
		}
		last = now
	}
}

// How long and how often settle polls.
const (
	settleWait = 5 * time.Second
	settlePoll = 250 * time.Millisecond
)

// userName is user id uid's name, or the number when it has none.
func userName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return u.Username
	}
	return strconv.Itoa(uid)
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

// ListenerPID is the process of the server's tree that listens on its
// address, the server program (under the shell, and valgrind, that run
// it), or PID when none can be told.
func (s *Server) ListenerPID() int {
	if _, port, err := net.SplitHostPort(s.addr); err == nil {
		if n, err := strconv.Atoi(port); err == nil {
			if pid, err := usage.Listener(s.PID(), n); err == nil && pid > 0 {
				return pid
			}
		}
	}
	return s.PID()
}

// ServerPID implements measure.ServerProcess.
func (s *Server) ServerPID() int { return s.PID() }

// Snapshot implements measure.ServerObserver: the process tree's CPU
// and, counted, its instructions; an error when the count could not be
// had (never estimated), or the server has exited.
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
		// A count that cannot be had fails the reading, the CPU with
		// it: counting is what the run was asked for, and a null
		// figure alone would not say why.
		n, err := s.count()
		if err != nil {
			return measure.ServerSnapshot{}, fmt.Errorf("its instructions: %w", err)
		}
		snap.Instructions = &n
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
