package memconn

import (
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// DefaultBuffer is the per-direction buffer size of Pipe, in the range of
// a loopback socket's default buffers.
const DefaultBuffer = 256 * 1024

// Pipe returns two connected ends; what one writes the other reads.
func Pipe() (net.Conn, net.Conn) { return PipeSize(DefaultBuffer) }

// PipeSize is Pipe with a given per-direction buffer size.
func PipeSize(size int) (net.Conn, net.Conn) {
	ab := newStream(size) // a writes, b reads
	ba := newStream(size) // b writes, a reads
	a := &conn{rx: ba, tx: ab, local: addr("memory:a"), remote: addr("memory:b")}
	b := &conn{rx: ab, tx: ba, local: addr("memory:b"), remote: addr("memory:a")}
	a.readDL, a.writeDL = newDeadline(), newDeadline()
	b.readDL, b.writeDL = newDeadline(), newDeadline()
	return a, b
}

type addr string

func (addr) Network() string  { return "memory" }
func (a addr) String() string { return string(a) }

// stream is one direction: a bounded byte queue.
type stream struct {
	mu       sync.Mutex
	buf      []byte
	size     int
	closed   bool // writer closed: reads drain then EOF
	readGone bool // reader closed: writes fail
	readable chan struct{}
	writable chan struct{}
}

func newStream(size int) *stream {
	return &stream{size: size, readable: make(chan struct{}, 1), writable: make(chan struct{}, 1)}
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

type conn struct {
	rx, tx          *stream
	local, remote   addr
	readDL, writeDL *deadline
	closeOnce       sync.Once
}

func (c *conn) Read(p []byte) (int, error) {
	for {
		s := c.rx
		s.mu.Lock()
		if len(s.buf) > 0 {
			n := copy(p, s.buf)
			s.buf = s.buf[n:]
			if len(s.buf) == 0 {
				s.buf = nil // release the backing array
			}
			s.mu.Unlock()
			signal(s.writable)
			return n, nil
		}
		if s.readGone {
			s.mu.Unlock()
			return 0, net.ErrClosed
		}
		if s.closed {
			s.mu.Unlock()
			return 0, io.EOF
		}
		s.mu.Unlock()
		if len(p) == 0 {
			return 0, nil
		}
		select {
		case <-s.readable:
		case <-c.readDL.wait():
			return 0, os.ErrDeadlineExceeded
		}
	}
}

func (c *conn) Write(p []byte) (int, error) {
	written := 0
	for {
		s := c.tx
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return written, net.ErrClosed
		}
		if s.readGone {
			s.mu.Unlock()
			return written, io.ErrClosedPipe
		}
		if room := s.size - len(s.buf); room > 0 {
			n := min(room, len(p)-written)
			s.buf = append(s.buf, p[written:written+n]...)
			written += n
			s.mu.Unlock()
			signal(s.readable)
			if written == len(p) {
				return written, nil
			}
			continue
		}
		s.mu.Unlock()
		select {
		case <-s.writable:
		case <-c.writeDL.wait():
			return written, os.ErrDeadlineExceeded
		}
	}
}

// Close ends both directions: the peer reads what was written, then EOF;
// the peer's writes fail.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		c.tx.mu.Lock()
		c.tx.closed = true
		c.tx.mu.Unlock()
		signal(c.tx.readable)
		c.rx.mu.Lock()
		c.rx.readGone = true
		c.rx.buf = nil
		c.rx.mu.Unlock()
		signal(c.rx.writable)
		signal(c.rx.readable) // wake our own pending Read
	})
	return nil
}

func (c *conn) LocalAddr() net.Addr  { return c.local }
func (c *conn) RemoteAddr() net.Addr { return c.remote }

func (c *conn) SetDeadline(t time.Time) error {
	c.readDL.set(t)
	c.writeDL.set(t)
	return nil
}
func (c *conn) SetReadDeadline(t time.Time) error  { c.readDL.set(t); return nil }
func (c *conn) SetWriteDeadline(t time.Time) error { c.writeDL.set(t); return nil }

// deadline is a settable point in time whose wait channel is closed once
// it has passed.
type deadline struct {
	mu     sync.Mutex
	timer  *time.Timer
	passed chan struct{}
}

func newDeadline() *deadline { return &deadline{passed: make(chan struct{})} }

func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil && !d.timer.Stop() {
		<-d.passed // the timer fired; wait for its close to be visible
	}
	d.timer = nil
	closed := isClosed(d.passed)
	if t.IsZero() {
		if closed {
			d.passed = make(chan struct{})
		}
		return
	}
	if dur := time.Until(t); dur > 0 {
		if closed {
			d.passed = make(chan struct{})
		}
		ch := d.passed
		d.timer = time.AfterFunc(dur, func() { close(ch) })
		return
	}
	if !closed {
		close(d.passed)
	}
}

func (d *deadline) wait() chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.passed
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
