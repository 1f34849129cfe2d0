//go:build linux

package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// flood opens and closes n connections as fast as the target takes them,
// with bounded concurrency (and within the file limit), for at most 15 s.
func flood(n int) func(context.Context, *config, *target, func()) string {
	return func(ctx context.Context, _ *config, t *target, inEffect func()) string {
		ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		workers := min(64, fileLimit()/4)
		var next, done, errs atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		inEffect()
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := &net.Dialer{Timeout: 2 * time.Second}
				for next.Add(1) <= int64(n) && ctx.Err() == nil {
					c, err := d.DialContext(ctx, "tcp", t.addr)
					if err != nil {
						errs.Add(1)
						continue
					}
					closeAbort(c)
					done.Add(1)
				}
			}()
		}
		wg.Wait()
		el := time.Since(start).Seconds()
		return fmt.Sprintf("%d/%d opened and closed in %.1f s (%.0f/s), %d failed", done.Load(), n, el, float64(done.Load())/el, errs.Load())
	}
}

// captureConn is a net.Conn that keeps what crypto/tls writes and fails
// the first read: enough to get a real ClientHello without a server.
type captureConn struct {
	net.Conn
	out []byte
}

func (c *captureConn) Write(b []byte) (int, error) { c.out = append(c.out, b...); return len(b), nil }
func (c *captureConn) Read([]byte) (int, error)    { return 0, errors.New("captured") }
func (c *captureConn) Close() error                { return nil }
func (c *captureConn) SetDeadline(time.Time) error { return nil }

// clientHelloRecord is the record crypto/tls sends first: one ClientHello
// (with its post-quantum key share, about 1.5 KB).
func clientHelloRecord() []byte {
	c := &captureConn{}
	tls.Client(c, &tls.Config{ServerName: "localhost", InsecureSkipVerify: true}).Handshake()
	return c.out
}

// asOneByteRecords splits a ClientHello record into records of one byte
// of handshake data each: the handshake layer must put 1,500 records
// back together.
func asOneByteRecords(rec []byte) []byte {
	body := rec[5:]
	out := make([]byte, 0, len(body)*6)
	for _, b := range body {
		out = append(out, 0x16, 0x03, 0x01, 0x00, 0x01, b)
	}
	return out
}

// answer is what the target sent back first, and when.
type answer struct {
	what string
	took time.Duration
}

// sendAndWatch connects, sends msg (then half-closes if closeWrite) and
// waits up to wait for the target's first bytes or its close.
func sendAndWatch(ctx context.Context, addr string, msg []byte, closeWrite bool, wait time.Duration) answer {
	c, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return answer{what: "connect failed"}
	}
	defer closeAbort(c)
	start := time.Now()
	c.SetDeadline(start.Add(wait))
	go func() { // written aside: a target may stop reading and answer first
		c.Write(msg)
		if closeWrite {
			c.(*net.TCPConn).CloseWrite()
		}
	}()
	buf := make([]byte, 5)
	n, err := c.Read(buf)
	a := answer{took: time.Since(start)}
	switch {
	case n > 0 && buf[0] == 0x16:
		a.what = "handshake answered"
	case n > 0 && buf[0] == 0x15:
		a.what = "alert"
	case n > 0:
		a.what = "answered"
	case errText(err) == "timeout":
		a.what = "no answer"
	default:
		a.what = "closed"
	}
	return a
}

// oneByteRecords sends n real ClientHellos at once, each as 1-byte records.
func oneByteRecords(n int) func(context.Context, *config, *target, func()) string {
	return func(ctx context.Context, _ *config, t *target, inEffect func()) string {
		msg := asOneByteRecords(clientHelloRecord())
		inEffect()
		answers := make([]answer, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() { defer wg.Done(); answers[i] = sendAndWatch(ctx, t.addr, msg, false, 12*time.Second) }()
		}
		wg.Wait()
		return fmt.Sprintf("%d hellos of %d records: %s", n, len(msg)/6, tally(answers))
	}
}

// tally counts answers by kind, with the slowest time of each.
func tally(as []answer) string {
	count := map[string]int{}
	slowest := map[string]time.Duration{}
	var order []string
	for _, a := range as {
		if count[a.what] == 0 {
			order = append(order, a.what)
		}
		count[a.what]++
		slowest[a.what] = max(slowest[a.what], a.took)
	}
	var parts []string
	for _, k := range order {
		parts = append(parts, fmt.Sprintf("%d %s (≤%d ms)", count[k], k, slowest[k].Milliseconds()))
	}
	return strings.Join(parts, ", ")
}

// malformedHellos are broken first flights, each a different way.
func malformedHellos() []struct {
	name       string
	msg        []byte
	closeWrite bool
} {
	rec := clientHelloRecord()
	hugeExt := append([]byte(nil), rec...)
	// The extensions' length sits after the session id, suites and
	// compression methods: set it to 0xffff, far past the message.
	off := 5 + 4 + 2 + 32
	off += 1 + int(hugeExt[off])
	off += 2 + (int(hugeExt[off])<<8 | int(hugeExt[off+1]))
	off += 1 + int(hugeExt[off])
	hugeExt[off], hugeExt[off+1] = 0xff, 0xff
	return []struct {
		name       string
		msg        []byte
		closeWrite bool
	}{
		{"record-len-65535", []byte{0x16, 0x03, 0x01, 0xff, 0xff, 0x01, 0x00}, false},
		{"hello-len-16M", []byte{0x16, 0x03, 0x01, 0x00, 0x08, 0x01, 0xff, 0xff, 0xff, 0x03, 0x03, 0, 0}, false},
		{"truncated-half", rec[:len(rec)/2], true},
		{"ext-len-65535", hugeExt, false},
		{"not-tls", []byte("\x00\x01\x02garbage-not-a-record\r\n\r\n"), false},
	}
}

// malformed sends each malformed ClientHello on its own connection, all
// at once, and says how the target answered each.
func malformed(ctx context.Context, _ *config, t *target, inEffect func()) string {
	cases := malformedHellos()
	inEffect()
	answers := make([]answer, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		wg.Add(1)
		go func() { defer wg.Done(); answers[i] = sendAndWatch(ctx, t.addr, c.msg, c.closeWrite, 12*time.Second) }()
	}
	wg.Wait()
	var parts []string
	for i, c := range cases {
		parts = append(parts, fmt.Sprintf("%s: %s %d ms", c.name, answers[i].what, answers[i].took.Milliseconds()))
	}
	return strings.Join(parts, ", ")
}
