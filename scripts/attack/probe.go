//go:build linux

package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/quic-go/quic-go"
)

// probeCap bounds all the legitimate handshakes of one series: a target
// that does not answer shows as a timeout, not as a harness that hangs.
const probeCap = 15 * time.Second

// prober makes the legitimate handshake of a target: TLS to serve, QUIC
// to serve --quic, CONNECT then TLS through the proxy to its origin.
type prober struct {
	t    *target
	conf *tls.Config
}

func newProber(t *target) *prober {
	pool := x509.NewCertPool()
	if pem, err := os.ReadFile(t.ca); err == nil {
		pool.AppendCertsFromPEM(pem)
	}
	conf := &tls.Config{RootCAs: pool, ServerName: "localhost"}
	if t.kind == "serve --quic" {
		conf.NextProtos = []string{"tlsbench-ping"}
	}
	return &prober{t: t, conf: conf}
}

// try makes one handshake and returns its time.
func (p *prober) try(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	var err error
	switch p.t.kind {
	case "serve":
		err = p.tlsHandshake(ctx, p.t.addr, nil)
	case "serve --quic":
		err = p.quicHandshake(ctx)
	default:
		err = p.proxyHandshake(ctx)
	}
	return time.Since(start), err
}

func (p *prober) tlsHandshake(ctx context.Context, addr string, connect func(net.Conn) error) error {
	c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer closeAbort(c)
	if d, ok := ctx.Deadline(); ok {
		c.SetDeadline(d)
	}
	if connect != nil {
		if err := connect(c); err != nil {
			return err
		}
	}
	return tls.Client(c, p.conf).HandshakeContext(ctx)
}

func (p *prober) quicHandshake(ctx context.Context) error {
	c, err := quic.DialAddr(ctx, p.t.addr, p.conf, &quic.Config{})
	if err != nil {
		return err
	}
	return c.CloseWithError(0, "")
}

// proxyHandshake asks the proxy for a tunnel to its origin and makes the
// TLS handshake through it (with the proxy's CA: it intercepts).
func (p *prober) proxyHandshake(ctx context.Context) error {
	dest := net.JoinHostPort("localhost", port(p.t.origin.addr))
	return p.tlsHandshake(ctx, p.t.addr, func(c net.Conn) error {
		status, err := connectStatus(c, dest)
		if err != nil {
			return err
		}
		if !strings.Contains(status, " 200 ") {
			return errors.New("answered " + status)
		}
		return nil
	})
}

// connectStatus sends CONNECT dest and returns the status line, having
// read the whole head.
func connectStatus(c net.Conn, dest string) (string, error) {
	if _, err := fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", dest, dest); err != nil {
		return "", err
	}
	br := bufio.NewReaderSize(c, 1) // nothing of the TLS after the head may be read here
	status, err := br.ReadString('\n')
	if err != nil {
		return "", err
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return "", err
		}
		if line == "\r\n" {
			return strings.TrimSpace(status), nil
		}
	}
}

// result is a series of handshakes.
type result struct {
	times []time.Duration
	errs  []string
}

// series makes n handshakes, one every gap, all within probeCap.
func (p *prober) series(ctx context.Context, n int, gap time.Duration) result {
	ctx, cancel := context.WithTimeout(ctx, probeCap)
	defer cancel()
	var r result
	for i := 0; i < n && ctx.Err() == nil; i++ {
		next := time.Now().Add(gap)
		d, err := p.try(ctx)
		if err != nil {
			r.errs = append(r.errs, errText(err))
		} else {
			r.times = append(r.times, d)
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Until(next)):
		}
	}
	return r
}

// summary is the median in ms, with the failures when there were any.
func (r result) summary() string {
	if len(r.times) == 0 && len(r.errs) == 0 {
		return "-"
	}
	if len(r.times) == 0 {
		if e := mostCommon(r.errs); e != "timeout" {
			return "failed: " + e
		}
		return "timeout"
	}
	s := slices.Clone(r.times)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	out := fmt.Sprintf("%.1f", float64(med)/float64(time.Millisecond))
	if len(r.errs) > 0 {
		out += fmt.Sprintf(", %d/%d failed: %s", len(r.errs), len(r.errs)+len(r.times), mostCommon(r.errs))
	}
	return out
}

// errText shortens an error to its kind: a deadline is a timeout.
func errText(err error) string {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return "timeout"
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && !strings.HasPrefix(s, "answered") {
		s = s[i+2:]
	}
	return oneLine(s)
}

func mostCommon(xs []string) string {
	count := map[string]int{}
	best := ""
	for _, x := range xs {
		count[x]++
		if count[x] > count[best] {
			best = x
		}
	}
	return best
}

// closeAbort closes with a reset: the harness must not fill the port
// range with TIME_WAIT sockets over 20,000 connections.
func closeAbort(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}
