package childproc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
)

// ReadConfig reads the parent's first line, the child's configuration,
// into v. The returned conn reads on after that line: use it, not
// control, from then on.
func ReadConfig(control net.Conn, v any) (net.Conn, error) {
	r := bufio.NewReader(control)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("control channel: %w", err)
	}
	if err := json.Unmarshal(line, v); err != nil {
		return nil, fmt.Errorf("control channel: bad options: %w", err)
	}
	return &bufferedConn{Conn: control, r: r}, nil
}

// Fail tells the parent why the child cannot start, in place of its
// hello, and returns err.
func Fail(control net.Conn, err error) error {
	msg := failMsg{Error: err.Error()}
	errors.As(err, &msg.Field)
	json.NewEncoder(control).Encode(msg)
	return err
}

// Serve answers the parent on conn until it says quit, closes the channel
// (the parent died), or ctx ends. It sends hello first; counters answers
// each "counters" request, by calling reply with the answer (so that it
// can bracket the making and sending of the answer, as a count of the
// child's own instructions must). It answers the profile requests
// (see ReqCPUProfileStart) itself, and stops a CPU profile left running
// when it returns.
func Serve(ctx context.Context, conn net.Conn, hello any, counters func(reply func(any) error) error) error {
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	defer conn.Close()
	enc := json.NewEncoder(conn)
	if err := enc.Encode(hello); err != nil {
		return fmt.Errorf("control channel: %w", err)
	}
	var prof profiles
	defer prof.close()
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		switch req := strings.TrimSpace(sc.Text()); req {
		case ReqCounters:
			if err := counters(enc.Encode); err != nil {
				return fmt.Errorf("control channel: %w", err)
			}
		case ReqQuit:
			return nil
		default:
			ans, ok := prof.answer(req)
			if !ok {
				ans = answered{Error: "unknown request " + req}
			}
			if err := enc.Encode(ans); err != nil {
				return fmt.Errorf("control channel: %w", err)
			}
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil && err != io.EOF {
		return fmt.Errorf("control channel: %w", err)
	}
	return nil
}

// bufferedConn reads through the bufio.Reader that already consumed the
// configuration line, so nothing the parent sent after it is lost.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
