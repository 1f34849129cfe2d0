//go:build unix

package proxy

import (
	"io"
	"syscall"
)

// tryOnce reads from the socket once, without waiting: returning true
// tells the runtime's poller not to wait for readability either.
func (c *legConn) tryOnce(fd uintptr) bool {
	for {
		n, err := syscall.Read(int(fd), c.p)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			c.n, c.err = 0, errWouldBlock
		case err != nil:
			c.n, c.err = 0, err
		case n == 0:
			c.n, c.err = 0, io.EOF
		default:
			c.n, c.err = n, nil
		}
		return true
	}
}
