//go:build linux

package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// forbiddenDests are destinations a proxy must not dial for its clients:
// the cloud metadata address, "this host" (0.0.0.0 reaches localhost), a
// private network, and an IPv4 address hidden in an IPv6 one.
var forbiddenDests = []string{"169.254.169.254:443", "0.0.0.0:443", "10.0.0.1:443", "[::ffff:192.0.2.1]:443"}

// forbidden asks the proxy for each forbidden destination in turn and
// records the status line it answered. Inside the network namespace a
// trap listens on :443 of each of those addresses (added to loopback),
// so a proxy that dials shows as "dialled" and nothing leaves the machine.
func forbidden(ctx context.Context, cfg *config, t *target, inEffect func()) string {
	var trap *trapListener
	if cfg.netns {
		var err error
		if trap, err = listenTrap(); err != nil {
			return "trap: " + oneLine(err.Error())
		}
		defer trap.Close()
	}
	inEffect()
	var parts []string
	for _, dest := range forbiddenDests {
		before := trap.count()
		status, took := askConnect(ctx, t.addr, dest)
		s := fmt.Sprintf("%s → %s %d ms", dest, status, took.Milliseconds())
		if trap != nil {
			time.Sleep(50 * time.Millisecond) // a dial still under way reaches the trap
			if trap.count() > before {
				s += " (DIALLED)"
			} else {
				s += " (not dialled)"
			}
		}
		parts = append(parts, s)
	}
	if cfg.noNetns {
		parts = append(parts, "no network namespace: proxy given a 1 s dial budget, dials not observed")
	}
	return strings.Join(parts, "; ")
}

// askConnect sends one CONNECT and returns the status line answered.
func askConnect(ctx context.Context, proxy, dest string) (string, time.Duration) {
	start := time.Now()
	c, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", proxy)
	if err != nil {
		return "connect failed", 0
	}
	defer closeAbort(c)
	c.SetDeadline(start.Add(12 * time.Second))
	status, err := connectStatus(c, dest)
	if err != nil {
		return errText(err), time.Since(start)
	}
	return strings.TrimPrefix(status, "HTTP/1.1 "), time.Since(start)
}

// trapListener accepts on :443 and counts who arrived.
type trapListener struct {
	net.Listener
	n atomic.Int64
}

func listenTrap() (*trapListener, error) {
	l, err := net.Listen("tcp4", "0.0.0.0:443")
	if err != nil {
		return nil, err
	}
	t := &trapListener{Listener: l}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			t.n.Add(1)
			c.Close()
		}
	}()
	return t, nil
}

func (t *trapListener) count() int64 {
	if t == nil {
		return 0
	}
	return t.n.Load()
}

// stallingOrigin is a TLS origin (with the serve origin's identity, so
// the proxy verifies it) that never reads and sends one byte a second:
// the proxy's writes to it stall while its idle timer keeps being reset.
func stallingOrigin(origin *target) (string, error) {
	cert, err := tls.LoadX509KeyPair(origin.identity[0], origin.identity[1])
	if err != nil {
		return "", fmt.Errorf("the origin's identity: %v", err)
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		return "", err
	}
	time.AfterFunc(40*time.Second, func() { l.Close() }) // outlives the attack, not the harness
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go trickle(c)
		}
	}()
	return l.Addr().String(), nil
}

func trickle(c net.Conn) {
	defer c.Close()
	if c.(*tls.Conn).Handshake() != nil {
		return
	}
	for range 30 {
		c.SetWriteDeadline(time.Now().Add(time.Second))
		if _, err := c.Write([]byte{'.'}); err != nil {
			return
		}
		time.Sleep(time.Second)
	}
}

// stalledRelay opens n tunnels through the proxy to the stalling origin
// and writes into each as fast as the proxy takes it.
func stalledRelay(n int) func(context.Context, *config, *target, func()) string {
	return func(ctx context.Context, _ *config, t *target, inEffect func()) string {
		p := newProber(t)
		h := &held{dataExpected: true}
		var tunnels []*tls.Conn
		for range n {
			raw, tc, err := p.tunnel(ctx, t.harnessOrigin)
			if err != nil {
				h.openErrs++
				continue
			}
			h.conns = append(h.conns, raw)
			tunnels = append(tunnels, tc)
		}
		h.start = time.Now()
		for _, tc := range tunnels {
			h.watch(tc)
		}
		inEffect()
		mb := pushUntil(tunnels, h.start.Add(holdFor))
		h.awaitEnds(ctx, h.start.Add(holdFor))
		return fmt.Sprintf("%.1f MB accepted before the writes stalled; %s", mb, h.release())
	}
}

// tunnel makes a TLS connection through the proxy to dest and returns
// the TCP connection under it too (to close it with a reset).
func (p *prober) tunnel(ctx context.Context, dest string) (net.Conn, *tls.Conn, error) {
	c, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", p.t.addr)
	if err != nil {
		return nil, nil, err
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	status, err := connectStatus(c, net.JoinHostPort("localhost", port(dest)))
	if err == nil && !strings.Contains(status, " 200 ") {
		err = fmt.Errorf("answered %s", status)
	}
	var tc *tls.Conn
	if err == nil {
		tc = tls.Client(c, p.conf)
		err = tc.HandshakeContext(ctx)
	}
	if err != nil {
		closeAbort(c)
		return nil, nil, err
	}
	c.SetDeadline(time.Time{})
	return c, tc, nil
}

// pushUntil writes 16 KiB at a time into every tunnel until the deadline,
// and returns the megabytes the proxy took.
func pushUntil(tunnels []*tls.Conn, deadline time.Time) float64 {
	var total atomic.Int64
	var wg sync.WaitGroup
	chunk := make([]byte, 16<<10)
	for _, tc := range tunnels {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tc.SetWriteDeadline(deadline)
			for {
				n, err := tc.Write(chunk)
				total.Add(int64(n))
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	return float64(total.Load()) / (1 << 20)
}

// bigHead sends CONNECT requests whose heads are larger than the proxy's
// 8 KiB limit and records what it answered.
func bigHead(ctx context.Context, _ *config, t *target, inEffect func()) string {
	inEffect()
	var parts []string
	for _, size := range []int{9 << 10, 64 << 10, 1 << 20} {
		status, took := sendHead(ctx, t.addr, size)
		parts = append(parts, fmt.Sprintf("%d KiB → %s %d ms", size>>10, status, took.Milliseconds()))
	}
	return strings.Join(parts, "; ")
}

// sendHead writes a CONNECT head of about size bytes (aside: the proxy
// may answer before it read it all) and reads the status line.
func sendHead(ctx context.Context, proxy string, size int) (string, time.Duration) {
	start := time.Now()
	c, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", proxy)
	if err != nil {
		return "connect failed", 0
	}
	defer closeAbort(c)
	c.SetDeadline(start.Add(12 * time.Second))
	head := "CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\nX-Pad: " + strings.Repeat("a", size) + "\r\n\r\n"
	go c.Write([]byte(head))
	buf := make([]byte, 128)
	n, err := c.Read(buf)
	if n == 0 {
		return errText(err), time.Since(start)
	}
	line, _, _ := strings.Cut(string(buf[:n]), "\r\n")
	return strings.TrimPrefix(line, "HTTP/1.1 "), time.Since(start)
}
