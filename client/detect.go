package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tlsbench/tlsbench/internal/connerr"
)

// DetectOptions say how DetectRequest reaches the server.
type DetectOptions struct {
	Dialer Dialer
	// Config is the clients' configuration (its version range, client
	// certificate, ALPN); its session cache is not used.
	Config *tls.Config
	// Host is the Host of the HTTP requests.
	Host string
	// Wait bounds each attempt's wait for an answer (default
	// DefaultDetectWait) and ConnTimeout its connect and handshake
	// (default 10 s).
	Wait, ConnTimeout time.Duration

	sessions *atomic.Pointer[tls.ClientSessionState] // the first attempt's
}

// DefaultDetectWait is how long an attempt of DetectRequest waits for an
// answer by default: a server that answers later is taken for one that
// does not answer that request.
const DefaultDetectWait = 2 * time.Second

// Detection is what DetectRequest found.
type Detection struct {
	// Request is the request the server answers (RequestWait when it
	// answers none; RequestHTTP when it could not be asked).
	Request Request
	// Tried says, attempt by attempt, what was sent and what came back.
	Tried []string
	// Err is set when the server could not be asked: no connection
	// got through its handshake.
	Err   error
	stage string // where Err happened: the connection or the handshake
	// earlyFull and earlyResumed: the server's TLS 1.3 tickets came
	// with its last handshake flight (Go's server sends them there when
	// it asks for no client certificate), after a full and after a
	// resumed handshake, so that a wait for more is not needed.
	earlyFull, earlyResumed bool
}

// Exchange is the exchange of the request found. RequestWait waits for
// nothing more than what came with the handshake when, for that kind of
// handshake, the server's tickets came with it.
func (d Detection) Exchange(host string) Exchange {
	if d.Request != RequestWait || !d.earlyFull && !d.earlyResumed {
		return d.Request.Exchange(host)
	}
	return func(c Conn) error {
		early := d.earlyFull
		if tc, ok := c.(*tls.Conn); ok && tc.ConnectionState().DidResume {
			early = d.earlyResumed
		}
		if early {
			return waitUnasked(c, 0)
		}
		return waitUnasked(c, waitLimit)
	}
}

// String says in one line what was chosen and why.
func (d Detection) String() string {
	return fmt.Sprintf("%s (%s)", d.Request, d.Reasons())
}

// Reasons says in one line how the server answered what was tried.
func (d Detection) Reasons() string {
	if d.Err != nil {
		// The cases meet the same failure and say what to do.
		return fmt.Sprintf("the server could not be asked: %s failed (%s)", d.stage, connerr.Kind(d.Err))
	}
	return strings.Join(d.Tried, "; ")
}

// attempt is one request sent on its own connection.
type attempt struct {
	req     Request
	first   string // the answer's first line, or "" when nothing came
	err     error  // Send's error: nil when the answer came and ended
	hsErr   error  // the dial or the handshake failed
	stage   string // which of them: "the connection" or "the handshake"
	alpn    string
	tickets int64 // TLS 1.3 session tickets the connection stored
	tls13   bool  // the connection negotiated TLS 1.3
	early   bool  // its tickets came with the server's last handshake flight
	resumed bool  // it resumed the session of an earlier attempt
	wait    time.Duration
}

// answered: the server answered and its answer ended (Send succeeded).
func (a attempt) answered() bool { return a.hsErr == nil && a.err == nil }

// http: the answer is an HTTP response (or an HTTP/2 frame).
func (a attempt) http() bool { return strings.HasPrefix(a.first, "HTTP/") }

func (a attempt) String() string {
	sent := map[Request]string{RequestHTTP: "HEAD /", RequestHTTPGet: "GET /", RequestLine: "a line", RequestPing: "a ping"}[a.req]
	first := a.first
	if len(first) > 40 {
		first = strings.ToValidUTF8(first[:40], "") + "..."
	}
	switch {
	case a.hsErr != nil:
		// The error may carry the server's certificate names: no
		// control character of theirs reaches the terminal.
		return fmt.Sprintf("%s: %s", sent, clipText(a.hsErr.Error(), 200))
	case a.first != "" && a.err == nil:
		return fmt.Sprintf("%s answered %q", sent, first)
	case a.first != "":
		return fmt.Sprintf("%s got %q, then %s", sent, first, a.quiet())
	}
	return fmt.Sprintf("%s got %s", sent, a.quiet())
}

// quiet describes the end of an attempt that got no full answer.
func (a attempt) quiet() string {
	switch {
	case errors.Is(a.err, os.ErrDeadlineExceeded):
		return fmt.Sprintf("no answer in %v", a.wait)
	case errors.Is(a.err, io.EOF):
		return "no answer: the server closed the connection"
	}
	return fmt.Sprintf("no answer: %v", a.err)
}

// DetectRequest asks the server which request it answers, one
// connection per attempt: an HTTP server answers HEAD / (or chose an
// HTTP protocol by ALPN); one that answers GET only (openssl s_server
// -www) GET /; an echo server sends HEAD's first line back and gets the
// line request; one that says something else is tried with a line and a
// ping; a server that answers nothing gets RequestWait (RequestNone when
// it sends no TLS 1.3 ticket either).
func DetectRequest(ctx context.Context, o DetectOptions) Detection {
	o.defaults()
	head := o.try(ctx, RequestHTTP)
	d := Detection{Tried: []string{head.String()}}
	if head.hsErr != nil {
		d.Request, d.Tried, d.Err, d.stage = RequestHTTP, nil, head.hsErr, head.stage
		return d
	}
	switch {
	case head.http() || head.answered() && (head.alpn == "h2" || head.alpn == "http/1.1"):
		d.Request = RequestHTTP
		return d
	case head.first == "HEAD / HTTP/1.1":
		// An echo server: lines come back.
		d.Request, d.Tried = RequestLine, []string{"HEAD / came back as it was sent (an echo server)"}
		return d
	}
	if head.first != "" && !head.answered() {
		// It said something, not HTTP, and never finished: not a
		// server that answers GET only, which says nothing to HEAD.
		d.Request = o.lineOrPing(ctx, &d)
		return d
	}
	get := o.try(ctx, RequestHTTPGet)
	d.Tried = append(d.Tried, get.String())
	switch {
	case get.http():
		d.Request = RequestHTTPGet
	case head.answered():
		d.Request = RequestHTTP
	case get.answered():
		d.Request = RequestHTTPGet
	case head.first == "" && get.first == "":
		// Silent: a line or a ping would get no more.
		d.Request = silentRequest(head, get)
		d.earlyFull, d.earlyResumed = head.early, head.early
		if get.resumed {
			d.earlyResumed = get.early
		}
		d.Tried = append(d.Tried, ticketsText(head, get))
	default:
		d.Request = o.lineOrPing(ctx, &d)
	}
	return d
}

// lineOrPing tries a line and then a ping on a server that said
// something to HTTP requests but answered neither.
func (o *DetectOptions) lineOrPing(ctx context.Context, d *Detection) Request {
	for _, r := range []Request{RequestLine, RequestPing} {
		a := o.try(ctx, r)
		d.Tried = append(d.Tried, a.String())
		if a.answered() {
			return r
		}
	}
	return RequestWait
}

// silentRequest is the request of a server that answers nothing: wait
// for the TLS 1.3 tickets it sends unasked, or none when it sent none
// (a wait would last its whole limit on every connection).
func silentRequest(as ...attempt) Request {
	for _, a := range as {
		if a.tickets > 0 || !a.tls13 {
			return RequestWait
		}
	}
	return RequestNone
}

// ticketsText says what a silent server sent unasked.
func ticketsText(as ...attempt) string {
	var n int64
	for _, a := range as {
		n = max(n, a.tickets)
	}
	if n == 0 {
		return "no TLS 1.3 session ticket came either"
	}
	return fmt.Sprintf("it sent %d TLS 1.3 session ticket(s) unasked", n)
}

func (o *DetectOptions) defaults() {
	o.sessions = new(atomic.Pointer[tls.ClientSessionState])
	if o.ConnTimeout <= 0 {
		o.ConnTimeout = 10 * time.Second
	}
	if o.Wait <= 0 {
		o.Wait = DefaultDetectWait
	}
	o.Wait = min(o.Wait, o.ConnTimeout)
}

// try sends r on a new connection and reads the answer for up to Wait.
func (o *DetectOptions) try(ctx context.Context, r Request) attempt {
	a := attempt{req: r, wait: o.Wait}
	deadline := time.Now().Add(o.ConnTimeout)
	raw, err := o.Dialer.Dial(ctx, deadline)
	if err != nil {
		a.hsErr, a.stage = err, "the connection"
		return a
	}
	defer AbortiveClose(raw)
	raw.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { raw.SetDeadline(time.Now()) })
	defer stop()
	cfg := o.Config.Clone()
	cache := &detectCache{first: o.sessions}
	cfg.ClientSessionCache = cache
	tc := tls.Client(raw, cfg)
	if err := tc.Handshake(); err != nil {
		a.hsErr, a.stage = fmt.Errorf("handshake: %w", err), "the handshake"
		return a
	}
	a.alpn, a.resumed = tc.ConnectionState().NegotiatedProtocol, tc.ConnectionState().DidResume
	if a.tls13 = tc.ConnectionState().Version == tls.VersionTLS13; a.tls13 {
		// What came with the handshake: in crypto/tls's buffer or
		// already in the socket (waitSettle reaches it).
		readUnasked(tc, time.Now().Add(waitSettle))
		a.early = cache.puts.Load() > 0
	}
	if ctx.Err() == nil {
		raw.SetDeadline(time.Now().Add(o.Wait))
	}
	a.first, a.err = r.Send(tc, o.Host)
	if ctx.Err() != nil {
		a.err = ctx.Err()
	}
	if a.tls13 {
		a.tickets = cache.puts.Load()
	}
	return a
}

// detectCache counts the sessions one attempt's connection stores, and
// keeps the first session of all attempts (first), which the attempts
// after offer: the second sees what the server does after a resumed
// handshake.
type detectCache struct {
	puts  atomic.Int64
	first *atomic.Pointer[tls.ClientSessionState]
}

func (c *detectCache) Get(string) (*tls.ClientSessionState, bool) {
	cs := c.first.Load()
	return cs, cs != nil
}

func (c *detectCache) Put(_ string, cs *tls.ClientSessionState) {
	if cs != nil {
		c.puts.Add(1)
		c.first.CompareAndSwap(nil, cs)
	}
}

// AgreeRequest gives servers that answer different requests (found[i],
// by DetectRequest with opts[i]) one that they all answer, when one of
// the requests found is: each server that was not found to answer it is
// asked once. Servers that answer nothing (RequestWait, RequestNone), or
// could not be asked, keep what was found; so do all when no request
// suits them all.
func AgreeRequest(ctx context.Context, opts []DetectOptions, found []Detection) {
	for _, cand := range found {
		if !cand.agreeable() || !differ(found) {
			continue
		}
		tried := make([]string, len(found))
		all := true
		for i := range found {
			if found[i].Request == cand.Request {
				continue
			}
			if !found[i].agreeable() {
				return
			}
			o := opts[i]
			o.defaults()
			a := o.try(ctx, cand.Request)
			tried[i] = a.String()
			if all = a.answered(); !all {
				break
			}
		}
		if all {
			for i := range found {
				if found[i].Request != cand.Request {
					found[i].Request = cand.Request
					found[i].Tried = append(found[i].Tried, tried[i]+" (what the other target answers)")
				}
			}
			return
		}
	}
}

// agreeable: the server answers a request, which another may answer too.
func (d Detection) agreeable() bool {
	return d.Err == nil && d.Request != RequestWait && d.Request != RequestNone
}

// differ reports whether the detections found different requests.
func differ(found []Detection) bool {
	for _, d := range found[1:] {
		if d.Request != found[0].Request {
			return true
		}
	}
	return false
}
