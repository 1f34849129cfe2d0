package probe

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"time"

	"github.com/tlsbench/tlsbench/loadgen"
)

// maxDrainBytes bounds what draining after an answer reads, so that a
// server that streams forever cannot hold the probe.
const maxDrainBytes = 1 << 20

// answer is what the server said to the request.
type answer struct {
	// First is the first line of the answer (or a description of it).
	First string
	Err   error
}

// exchange sends o.Request on tc, reads the answer and then keeps reading
// for o.TicketWait (or until the server closes), so that every
// post-handshake message the server sends around its answer (TLS 1.3
// tickets) is processed by crypto/tls and stored in the session cache.
func (o *Options) exchange(tc *tls.Conn, host string) answer {
	a := o.request(tc, host)
	drain(tc, o.TicketWait)
	return a
}

// loadExchange is the exchange of the load test: the request and its
// answer, without the extra wait (tickets precede the answer).
func (o *Options) loadExchange(host string) loadgen.Exchange {
	if o.Request == RequestNone {
		return func(tc *tls.Conn) error {
			drain(tc, o.TicketWait)
			return nil
		}
	}
	return o.Request.Exchange(host)
}

// request writes the request and reads the answer's first line (HTTP/1),
// frame (HTTP/2) or byte (ping), with loadgen's implementation, so the
// probe and the benchmark say the same thing to a server.
func (o *Options) request(tc *tls.Conn, host string) answer {
	first, err := o.Request.Send(tc, host)
	if err != nil {
		err = noAnswer(err)
	}
	return answer{First: first, Err: err}
}

func noAnswer(err error) error {
	if errors.Is(err, io.EOF) {
		return errors.New("the server closed the connection without answering")
	}
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return errors.New("no answer before the connection timeout")
	}
	return err
}

// drain reads and discards until the server closes, wait passes without
// data, 10 waits pass in all, or maxDrainBytes were read.
func drain(tc *tls.Conn, wait time.Duration) {
	buf := make([]byte, 16<<10)
	total := 0
	end := time.Now().Add(10 * wait)
	for total < maxDrainBytes {
		dl := time.Now().Add(wait)
		if dl.After(end) {
			dl = end
		}
		tc.SetReadDeadline(dl)
		n, err := tc.Read(buf)
		total += n
		if err != nil {
			return
		}
	}
}

// hostHeader is the Host of the HTTP request: the server name, or the
// address when the server name is an IP address.
func hostHeader(o *Options) string {
	if net.ParseIP(o.ServerName) != nil {
		return o.Addr
	}
	return o.ServerName
}
