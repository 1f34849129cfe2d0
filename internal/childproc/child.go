package childproc

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

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/tail"
)

// ErrUnsupported is the error of Start where there are no socketpairs.
var ErrUnsupported = errors.New("a child process is not supported")

// Control channel requests, one line each, after the parent's first line.
const (
	ReqCounters = "counters"
	ReqQuit     = "quit"
)

// Options say how to start a child.
type Options struct {
	// Path is the executable and Args its arguments after the program
	// name; Start appends "--control-fd 3".
	Path string
	Args []string
	// Config is sent to the child as its first line, as JSON.
	Config any
	// Env is added to the parent's environment.
	Env []string
	// StartTimeout bounds the wait for the child's hello (default 30 s).
	StartTimeout time.Duration
	// What names the child in errors ("the built-in server").
	What string
	// Instructions runs the child under callgrind, which counts the
	// instructions it executes (see package callgrind), in a directory
	// of dumps removed when it exits.
	Instructions bool
}

// Child is a service running in a child process.
type Child struct {
	what string
	cmd  *exec.Cmd
	conn net.Conn
	r    *bufio.Reader

	mu      sync.Mutex // one request at a time on the channel
	broken  error      // set once a request failed; the channel is not trusted after
	closing bool       // Close asked the child to quit
	counted bool       // it runs under callgrind, slowly
	stderr  *tail.Buffer
	done    chan struct{}
	err     error // exit status, valid after done is closed
}

// failMsg is the part of the child's first line that says it could not
// start; the rest is its hello.
type failMsg struct {
	Error string       `json:"error,omitempty"`
	Field *field.Error `json:"field,omitempty"`
}

// Start starts the child and waits until it reports ready with its hello
// line, which it decodes into hello. Errors carry the child's own last
// words (for example "address already in use"), or its *field.Error.
func Start(ctx context.Context, o Options, hello any) (*Child, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c, err := launch(o)
	if err != nil {
		return nil, err
	}
	// Until it reports ready, ending ctx stops the start; afterwards the
	// caller stops the child with Close (and the child exits by itself
	// when its control channel closes, should the parent die).
	stopWatch := context.AfterFunc(ctx, func() { c.conn.SetDeadline(time.Now()) })
	defer stopWatch()
	// A child that exits before its hello ends the wait too, even when a
	// process it started holds its end of the channel open.
	started := make(chan struct{})
	go func() {
		select {
		case <-c.done:
			c.conn.SetDeadline(time.Now())
		case <-started:
		}
	}()
	timeout := o.StartTimeout
	if timeout == 0 {
		timeout = 30 * time.Second
		if o.Instructions {
			timeout *= 4 // callgrind runs it about 50 times slower
		}
	}
	c.conn.SetDeadline(time.Now().Add(timeout))
	var line []byte
	err = json.NewEncoder(c.conn).Encode(o.Config)
	if err == nil {
		line, err = c.r.ReadBytes('\n')
	}
	close(started)
	c.conn.SetDeadline(time.Time{})
	var fail failMsg
	if err == nil {
		err = json.Unmarshal(line, &fail)
	}
	if err == nil && fail.Error != "" {
		c.kill()
		if fail.Field != nil {
			return nil, fail.Field
		}
		return nil, errors.New(fail.Error)
	}
	if err == nil {
		err = json.Unmarshal(line, hello)
	}
	if err != nil {
		exited := c.exited()
		if !exited && !errors.Is(err, os.ErrDeadlineExceeded) {
			// A channel closed or reset: most likely the child is
			// exiting, which takes a moment to be seen.
			select {
			case <-c.done:
				exited = true
			case <-time.After(2 * time.Second):
			}
		}
		c.kill()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, c.startError(err, exited, timeout)
	}
	return c, nil
}

// exited reports whether the child has ended.
func (c *Child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// launch starts the process with the child's end of the control channel
// as fd 3.
func launch(o Options) (*Child, error) {
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
	path, args, env, dir, err := counted(o, args)
	if err != nil {
		conn.Close()
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Env = append(append(os.Environ(), o.Env...), env...)
	cmd.ExtraFiles = []*os.File{childEnd} // fd 3 in the child
	stderrTail := &tail.Buffer{Max: 4096}
	cmd.Stderr = stderrTail
	cmd.Stdout = io.Discard
	cmd.SysProcAttr = childProcAttr()
	// A program that leaves a process of its own behind holding its
	// stderr must not keep Wait (and so the run, Ctrl-C included)
	// waiting for that pipe after the child itself has exited.
	cmd.WaitDelay = 2 * time.Second
	what := o.What
	if what == "" {
		what = "the child process"
	}
	if err := cmd.Start(); err != nil {
		conn.Close()
		removeDumps(dir)
		return nil, fmt.Errorf("starting %s: %w", what, err)
	}
	c := &Child{what: what, cmd: cmd, conn: conn, r: bufio.NewReader(conn), stderr: stderrTail, done: make(chan struct{}), counted: o.Instructions}
	go func() {
		c.err = cmd.Wait()
		removeDumps(dir)
		close(c.done)
	}()
	return c, nil
}

// startError explains a child that did not come up (err is what its
// control channel said): in its own words when it left any, else by how
// it ended. A child still running when the wait ended was killed by it:
// that kill is no news, the wait's end is.
func (c *Child) startError(err error, exited bool, timeout time.Duration) error {
	<-c.done
	last := c.stderr.LastLine()
	switch {
	case !exited && errors.Is(err, os.ErrDeadlineExceeded):
		msg := fmt.Sprintf("%s did not report ready within %v and was stopped", c.what, timeout)
		if last != "" {
			msg += "; its last line on stderr: " + strings.TrimPrefix(last, servicePrefix)
		}
		return errors.New(msg)
	case exited:
		return &EarlyExitError{What: c.what, LastLine: last, Status: c.err}
	case last != "":
		return errors.New(strings.TrimPrefix(last, servicePrefix))
	}
	return fmt.Errorf("%s broke its control channel before it reported ready: %v", c.what, err)
}

// servicePrefix starts every line a child service writes of why it
// stopped (see RunIfChild), as tlsbench starts its errors.
const servicePrefix = "tlsbench: "

// EarlyExitError is Start's error for a child that ended before it
// reported ready: in its own words when it left any on stderr, else by
// how it ended.
type EarlyExitError struct {
	What string
	// LastLine is its last line on stderr, "" for none.
	LastLine string
	// Status is how it ended: nil for status 0, else the *exec.ExitError.
	Status error
}

func (e *EarlyExitError) Error() string {
	switch {
	case e.LastLine != "":
		return strings.TrimPrefix(e.LastLine, servicePrefix)
	case e.Status != nil:
		return fmt.Sprintf("%s ended before it reported ready (%v) and wrote nothing on stderr", e.What, e.Status)
	}
	return fmt.Sprintf("%s exited with status 0 before it reported ready and wrote nothing on stderr", e.What)
}

// Spoke reports whether the child's last line on stderr is a service's
// own ("tlsbench: ..."): the service ran and said why it stopped. A
// child that ended without one may never have run the service at all: a
// program that re-ran itself but does not dispatch to its children.
func (e *EarlyExitError) Spoke() bool { return strings.HasPrefix(e.LastLine, servicePrefix) }

// PID is the child's process id.
func (c *Child) PID() int { return c.cmd.Process.Pid }

// Request sends req and decodes the one-line answer into v. After a
// failure the channel is not used again: a late answer would be read as
// the answer to the next request, shifting every delta by one snapshot.
func (c *Child) Request(req string, v any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return c.broken
	}
	c.conn.SetDeadline(time.Now().Add(10 * time.Second))
	defer c.conn.SetDeadline(time.Time{})
	if _, err := io.WriteString(c.conn, req+"\n"); err != nil {
		c.broken = c.channelError(err)
		return c.broken
	}
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		c.broken = c.channelError(err)
		return c.broken
	}
	if err := json.Unmarshal(line, v); err != nil {
		return fmt.Errorf("%s: %s: %w", c.what, req, err)
	}
	return nil
}

func (c *Child) channelError(err error) error {
	select {
	case <-c.done:
		return c.exitError()
	case <-time.After(time.Second):
		// A channel that broke because the child is dying is
		// explained by its death, which takes a moment to be seen.
		return fmt.Errorf("%s: control channel: %w", c.what, err)
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
	io.WriteString(c.conn, ReqQuit+"\n")
	c.mu.Unlock()
	patience := 5 * time.Second
	if c.counted {
		patience *= 6
	}
	select {
	case <-c.done:
	case <-time.After(patience):
		c.kill()
		return fmt.Errorf("%s (pid %d) did not quit within %v and was killed", c.what, c.cmd.Process.Pid, patience)
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
	killGroup(c.cmd.Process)
	<-c.done
	c.conn.Close()
}
