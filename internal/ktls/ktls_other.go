//go:build !linux

package ktls

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"runtime"
	"syscall"
	"time"
)

// Supported always fails off Linux: kTLS is a Linux kernel feature.
func Supported() error { return fmt.Errorf("%w on %s", ErrUnsupported, runtime.GOOS) }

// Enable always fails off Linux; tc keeps working in user space.
func Enable(tc *tls.Conn, rc *RecordConn, dir Direction, opts ...Option) (*Conn, error) {
	if rc != nil {
		rc.Passthrough()
	}
	return nil, Supported()
}

// Splice always fails off Linux.
func Splice(dst, src *Conn, max int64) (int64, error) { return 0, Supported() }

// probeFor is never reached off Linux: SupportedFor asks Supported first.
func probeFor(version uint16, s suite, dir Direction) error { return Supported() }

// ReadTLSStat always fails off Linux.
func ReadTLSStat() (map[string]int64, error) { return nil, Supported() }

// Conn is never returned off Linux; its methods exist so that callers
// compile everywhere.
type Conn struct{}

func (c *Conn) State() State                          { return State{} }
func (c *Conn) ConnectionState() tls.ConnectionState  { return tls.ConnectionState{} }
func (c *Conn) TicketsSkipped() int                   { return 0 }
func (c *Conn) CloseNotified() bool                   { return false }
func (c *Conn) Verify() error                         { return Supported() }
func (c *Conn) Read(p []byte) (int, error)            { return 0, Supported() }
func (c *Conn) Write(p []byte) (int, error)           { return 0, Supported() }
func (c *Conn) ReadFrom(r io.Reader) (int64, error)   { return 0, Supported() }
func (c *Conn) CloseWrite() error                     { return Supported() }
func (c *Conn) Close() error                          { return Supported() }
func (c *Conn) LocalAddr() net.Addr                   { return nil }
func (c *Conn) RemoteAddr() net.Addr                  { return nil }
func (c *Conn) SetDeadline(t time.Time) error         { return Supported() }
func (c *Conn) SetReadDeadline(t time.Time) error     { return Supported() }
func (c *Conn) SetWriteDeadline(t time.Time) error    { return Supported() }
func (c *Conn) SyscallConn() (syscall.RawConn, error) { return nil, Supported() }
