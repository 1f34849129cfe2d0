package probe

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"time"

	"github.com/tlsbench/tlsbench/client"
)

// maxDrainBytes bounds what draining after an answer reads, so that a
// server that streams forever cannot hold the probe.
const maxDrainBytes = 1 << 20

// answer is what the server said to the request.
type answer struct {
	// First is the first line of the answer (or a description of it).
	First string
	Err   error
	// Skipped: no request was sent, as the server had left it
	// unanswered on an earlier connection of this version ("TLS 1.3").
	Skipped string
}

// exchange sends the request on tc, reads the answer and then keeps
// reading for TicketWait (or until the server closes), so that every
// post-handshake message the server sends around its answer (TLS 1.3
// tickets) is processed by crypto/tls and stored in the session cache.
// Once the server has left the request unanswered, later connections
// send nothing and only read: each would wait out the timeout again.
func (p *prober) exchange(tc *tls.Conn) answer {
	o := &p.o
	if p.unanswered != "" {
		drain(tc, o.TicketWait)
		return answer{Skipped: p.unanswered}
	}
	a := p.request(tc)
	drain(tc, o.TicketWait)
	return a
}

// loadExchange is the exchange of the load test: the request and its
// answer, without the extra wait (tickets precede the answer).
func (o *Options) loadExchange(host string) client.Exchange {
	if o.Request == RequestNone {
		return func(c client.Conn) error {
			drain(c, o.TicketWait)
			return nil
		}
	}
	return o.Request.Exchange(host)
}

// request writes the request and reads the answer's first line (HTTP/1),
// frame (HTTP/2) or byte (ping), with client's implementation, so the
// probe and the benchmark say the same thing to a server.
func (p *prober) request(tc *tls.Conn) answer {
	first, err := p.o.Request.Send(tc, hostHeader(&p.o))
	switch {
	case err == nil:
	case errors.Is(err, os.ErrDeadlineExceeded):
		p.unanswered = "TLS " + versionName(tc.ConnectionState().Version)
		err = errors.New(p.unansweredText(first != ""))
	default:
		err = noAnswer(err)
	}
	return answer{First: first, Err: err}
}

// unansweredText says what was sent, that nothing (more) came back, and
// what to do about it.
func (p *prober) unansweredText(partial bool) string {
	sent := map[Request]string{
		RequestHTTP: "HEAD / HTTP/1.1", RequestHTTPGet: "GET / HTTP/1.1", RequestPing: "a 1-byte ping",
		RequestLine: `the line "tlsbench"`, RequestWait: "nothing",
	}[p.o.Request]
	came := "nothing came back"
	if partial {
		came = "then nothing more"
	}
	msg := fmt.Sprintf("sent %s after the handshake; %s within %v", sent, came, p.o.Timeout)
	fix := "give another %s"
	if !p.rep.RequestAuto {
		fix = "leave out %s to have the server asked which request it answers"
	}
	args := []any{SettingRequest}
	if p.o.Request == RequestHTTP {
		fix = "a server that answers GET only (openssl s_server -www) needs %s http-get; or " + fix
		args = append(args, SettingRequest)
	}
	return msg + "; " + p.o.advice(fix+", or give a longer %s if it is only slow", append(args, SettingTimeout)...)
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
func drain(tc net.Conn, wait time.Duration) {
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

// chooseRequest asks the server which request it answers (one connection
// per request tried, each waiting at most client.DefaultDetectWait or
// Timeout) and sends that one from then on. A server that cannot be
// asked gets RequestHTTP; the connections that follow say why.
func (p *prober) chooseRequest(ctx context.Context) {
	p.progress("choosing the request: what does the server answer?")
	cfg := p.clientConfig(0, nil, false)
	cfg.MinVersion, cfg.MaxVersion = slices.Min(p.o.Versions), slices.Max(p.o.Versions)
	d := client.DetectRequest(ctx, client.DetectOptions{
		Dialer: client.TCPDialer{Addr: p.o.Addr}, Config: cfg, Host: hostHeader(&p.o),
		Wait: min(p.o.Timeout, client.DefaultDetectWait), ConnTimeout: p.o.Timeout,
	})
	p.o.Request = d.Request
	p.rep.Request, p.rep.RequestAuto, p.rep.RequestChoice = d.Request, true, d.Reasons()
}
