//go:build !unix

package proxy

// tryOnce cannot read without waiting here: read-fill stops at what
// crypto/tls holds already.
func (c *legConn) tryOnce(fd uintptr) bool {
	c.n, c.err = 0, errWouldBlock
	return true
}
