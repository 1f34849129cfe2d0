package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/tlsbench/tlsbench/internal/tail"
)

// ChildOptions say how to start a server in a process of its own.
type ChildOptions struct {
	// Path is the executable (normally tlsbench itself, os.Executable) and
	// Args its arguments after the program name (normally ["serve"]).
	// StartChild appends the control flag "--control-fd 3"; the server's
	// configuration is sent over that channel, not on the command line.
	Path string
	Args []string
	// Server is the child server's configuration.
	Server Options
	// Env is added to the parent's environment.
	Env []string
	// StartTimeout bounds the wait for the child's Hello (default 30 s).
	StartTimeout time.Duration
}

// Child is a server running in a child process, reachable only through
// the control channel its parent holds.
type Child struct {
	cmd   *exec.Cmd
	conn  net.Conn
	r     *bufio.Reader
	hello Hello

	mu      sync.Mutex // one request at a time on the channel
	broken  error      // set once a request failed; the channel is not trusted after
	closing bool       // Close asked the child to quit
	stderr  *tail.Buffer
	done    chan struct{}
	err     error // exit status, valid after done is closed
}

// StartChild starts the child server and waits until it listens. Errors
// carry the child's own last words (for example "address already in
// use").
func StartChild(ctx context.Context, o ChildOptions) (*Child, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	parentEnd, childEnd, err := controlPair()
	if err != nil {
		return nil, err
	}
	defer childEnd.Close()
	conn, err := net.FileConn(parentEnd)
	parentEnd.Close()
	if err != nil {
		return nil, fmt.Errorf("control channel: %w", err)
	}

	args := append(append([]string(nil), o.Args...), "--control-fd", "3")
	cmd := exec.Command(o.Path, args...)
	cmd.Env = append(os.Environ(), o.Env...)
	cmd.ExtraFiles = []*os.File{childEnd} // fd 3 in the child
	stderrTail := &tail.Buffer{Max: 4096}
	cmd.Stderr = stderrTail
	cmd.Stdout = io.Discard
	// A process group of its own: Ctrl-C in a terminal goes to the
	// parent alone, which takes the server's last counters for the case
	// it interrupts and then stops it.
	cmd.SysProcAttr = childProcAttr()
	if err := cmd.Start(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("starting server process: %w", err)
	}
	c := &Child{cmd: cmd, conn: conn, r: bufio.NewReader(conn), stderr: stderrTail, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()

	// Until it reports ready, ending ctx stops the start; afterwards the
	// caller stops the child with Close (and the child exits by itself
	// when its control channel closes, should the parent die).
	stopWatch := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stopWatch()
	timeout := o.StartTimeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	conn.SetDeadline(time.Now().Add(timeout))
	var msg helloMsg
	err = json.NewEncoder(conn).Encode(o.Server)
	if err == nil {
		var line []byte
		if line, err = c.r.ReadBytes('\n'); err == nil {
			err = json.Unmarshal(line, &msg)
		}
	}
	conn.SetDeadline(time.Time{})
	if err == nil && msg.Error != "" {
		c.kill()
		if msg.Field != nil {
			return nil, msg.Field
		}
		return nil, errors.New(msg.Error)
	}
	if err != nil {
		c.kill()
		return nil, c.startError(err)
	}
	c.hello = msg.Hello

	return c, nil
}

// startError explains a child that did not come up, in its own words
// when it left any.
func (c *Child) startError(err error) error {
	<-c.done
	if msg := c.stderr.LastLine(); msg != "" {
		return errors.New(strings.TrimPrefix(msg, "tlsbench: "))
	}
	if c.err != nil {
		return fmt.Errorf("server process failed: %v", c.err)
	}
	return fmt.Errorf("server process did not report ready: %v", err)
}

// Hello returns what the child reported at start.
func (c *Child) Hello() Hello { return c.hello }

// PID is the child's process id.
func (c *Child) PID() int { return c.cmd.Process.Pid }

// Counters asks the child for its counters.
func (c *Child) Counters() (Counters, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var cs Counters
	if c.broken != nil {
		return cs, c.broken
	}
	c.conn.SetDeadline(time.Now().Add(10 * time.Second))
	defer c.conn.SetDeadline(time.Time{})
	if _, err := io.WriteString(c.conn, reqCounters+"\n"); err != nil {
		c.broken = c.channelError(err)
		return cs, c.broken
	}
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		// A late answer would be read as the answer to the next
		// request, shifting every delta by one snapshot: after a
		// failure the channel is not used again.
		c.broken = c.channelError(err)
		return cs, c.broken
	}
	if err := json.Unmarshal(line, &cs); err != nil {
		return cs, fmt.Errorf("server counters: %w", err)
	}
	return cs, nil
}

func (c *Child) channelError(err error) error {
	select {
	case <-c.done:
		return c.exitError()
	case <-time.After(time.Second):
		// A channel that broke because the child is dying is
		// explained by its death, which takes a moment to be seen.
		return fmt.Errorf("server control channel: %w", err)
	}
}

// Close asks the child to quit and waits for it (killing it after 5 s).
func (c *Child) Close() error {
	select {
	case <-c.done:
		// It ended before it was asked to.
		c.conn.Close()
		return c.exitError()
	default:
	}
	c.mu.Lock()
	c.closing = true
	io.WriteString(c.conn, reqQuit+"\n")
	c.mu.Unlock()
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		c.kill()
		return fmt.Errorf("the built-in server (pid %d) did not quit within 5 s and was killed", c.cmd.Process.Pid)
	}
	c.conn.Close()
	var exit *exec.ExitError
	if c.err != nil && !errors.As(c.err, &exit) {
		return c.err
	}
	if c.err != nil {
		return c.exitError()
	}
	return nil
}

func (c *Child) kill() {
	c.cmd.Process.Kill()
	<-c.done
	c.conn.Close()
}
