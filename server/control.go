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
	"strings"

	"github.com/tlsbench/tlsbench/internal/field"
)

// Hello is the first message a child server sends its parent: where it
// listens and what a client needs to trust it.
type Hello struct {
	PID  int    `json:"pid"`
	Addr string `json:"addr"`
	// CAFile is the CA certificate clients should verify the server with,
	// when the server wrote one.
	CAFile string `json:"ca_file,omitempty"`
}

// helloMsg is the child's first line: Hello, or the reason it could not
// start.
type helloMsg struct {
	Hello
	Error string `json:"error,omitempty"`
	// Field is Error as a *field.Error, when it is one, so that the
	// parent can name the setting at fault in its own words.
	Field *field.Error `json:"field,omitempty"`
}

// Control channel requests, one line each, after the parent's first line,
// which is the child's Options as JSON. The answer to "counters" is one
// JSON line of Counters; "quit" is answered by closing the channel.
const (
	reqCounters = "counters"
	reqQuit     = "quit"
)

// ServeControl answers the parent on conn until it says quit, closes the
// channel (the parent died), or ctx ends. It sends hello first.
func ServeControl(ctx context.Context, conn net.Conn, srv *Server, hello Hello) error {
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	defer conn.Close()
	enc := json.NewEncoder(conn)
	if err := enc.Encode(helloMsg{Hello: hello}); err != nil {
		return fmt.Errorf("control channel: %w", err)
	}
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		switch req := strings.TrimSpace(sc.Text()); req {
		case reqCounters:
			if err := enc.Encode(srv.Counters()); err != nil {
				return fmt.Errorf("control channel: %w", err)
			}
		case reqQuit:
			return nil
		default:
			if err := enc.Encode(map[string]string{"error": "unknown request " + req}); err != nil {
				return fmt.Errorf("control channel: %w", err)
			}
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil && err != io.EOF {
		return fmt.Errorf("control channel: %w", err)
	}
	return nil
}

// ServeChild is the body of a child server process. It reads its Options
// from the control channel, listens, answers with Hello (or the reason it
// cannot start), and serves until the parent says quit or goes away.
func ServeChild(ctx context.Context, control net.Conn, opts ...Option) error {
	r := bufio.NewReader(control)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("control channel: %w", err)
	}
	var o Options
	if err := json.Unmarshal(line, &o); err != nil {
		return fmt.Errorf("control channel: bad options: %w", err)
	}
	fail := func(err error) error {
		msg := helloMsg{Error: err.Error()}
		errors.As(err, &msg.Field)
		json.NewEncoder(control).Encode(msg)
		return err
	}
	srv, err := NewFromOptions(o, opts...)
	if err != nil {
		return fail(err)
	}
	addr := o.Listen
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	err = ServeControl(ctx, &bufferedConn{Conn: control, r: r}, srv, Hello{PID: os.Getpid(), Addr: ln.Addr().String()})
	cancel()
	if serr := <-served; err == nil {
		err = serr
	}
	return err
}

// bufferedConn reads through the bufio.Reader that already consumed the
// options line, so nothing the parent sent after it is lost.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
