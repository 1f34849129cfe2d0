//go:build linux

package ktls

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

var supported = sync.OnceValue(probe)

// Supported reports whether this kernel can do kTLS: nil, or an error
// wrapping ErrUnsupported with a one-line reason such as
// "kTLS is not supported: kernel has no TLS ULP (CONFIG_TLS): ...".
// It probes once per process: a loopback TCP pair, setsockopt(TCP_ULP,
// "tls") (which loads the tls module on demand) and a TLS_TX setup with
// AES-128-GCM.
func Supported() error { return supported() }

func availableULP() string {
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_available_ulp")
	if err != nil {
		return "unreadable"
	}
	return strings.TrimSpace(string(b))
}

func probe() error {
	ci := &cryptoInfo{version: versionTLS12, cipherType: cipherAESGCM128, iv: make([]byte, 8), key: make([]byte, 16), salt: make([]byte, 4)}
	return probeSocket(func(fd int) error {
		if err := setCryptoInfo(fd, optTLSTX, ci); err != nil {
			return fmt.Errorf("%w: TLS ULP present but TLS_TX with AES-128-GCM failed: %v (missing gcm/aes crypto modules?)", ErrUnsupported, err)
		}
		return nil
	})
}

// probeFor is SupportedFor's probe: TLS_TX and/or TLS_RX with zero keys of
// the suite's sizes on one socket of a loopback pair.
func probeFor(version uint16, s suite, dir Direction) error {
	name := tls.VersionName(version) + " " + s.cipher
	ivLen := 12
	if version == tls.VersionTLS12 {
		ivLen = s.fixedIVLen
	}
	ci, err := newCryptoInfo(version, s, make([]byte, s.keyLen), make([]byte, ivLen), 0)
	if err != nil {
		return err
	}
	return probeSocket(func(fd int) error {
		for _, d := range []struct {
			dir Direction
			opt int
			n   string
		}{{TX, optTLSTX, "TLS_TX"}, {RX, optTLSRX, "TLS_RX"}} {
			if dir&d.dir == 0 {
				continue
			}
			if err := setCryptoInfo(fd, d.opt, ci); err != nil {
				return fmt.Errorf("%w: setsockopt %s (%s) failed on a test socket: %v", ErrUnsupported, d.n, name, err)
			}
		}
		return nil
	})
}

// probeSocket runs set on a fresh loopback TCP socket with the TLS ULP
// attached.
func probeSocket(set func(fd int) error) error {
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		ln, err = net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv6loopback})
	}
	if err != nil {
		return fmt.Errorf("%w: cannot probe, no loopback listener: %v", ErrUnsupported, err)
	}
	defer ln.Close()
	c, err := net.DialTCP("tcp", nil, ln.Addr().(*net.TCPAddr))
	if err != nil {
		return fmt.Errorf("%w: cannot probe, loopback dial: %v", ErrUnsupported, err)
	}
	defer c.Close()
	_ = c.SetLinger(0)
	s, err := ln.AcceptTCP()
	if err != nil {
		return fmt.Errorf("%w: cannot probe, loopback accept: %v", ErrUnsupported, err)
	}
	defer s.Close()
	raw, err := c.SyscallConn()
	if err != nil {
		return fmt.Errorf("%w: cannot probe: %v", ErrUnsupported, err)
	}
	var ulpErr, setErr error
	if err := raw.Control(func(fd uintptr) {
		ulpErr = unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, tcpULP, "tls")
		if ulpErr == nil {
			setErr = set(int(fd))
		}
	}); err != nil {
		return fmt.Errorf("%w: cannot probe: %v", ErrUnsupported, err)
	}
	if ulpErr != nil {
		return ulpError(ulpErr)
	}
	return setErr
}

func ulpError(err error) error {
	if errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("%w: setsockopt TCP_ULP \"tls\": %v; tcp_available_ulp: %q", ErrNoKernelTLS, err, availableULP())
	}
	return fmt.Errorf("%w: setsockopt TCP_ULP \"tls\": %v", ErrUnsupported, err)
}

func setCryptoInfo(fd, opt int, ci *cryptoInfo) error {
	// SetsockoptString passes the bytes and their length unchanged.
	return unix.SetsockoptString(fd, solTLS, opt, string(ci.marshal()))
}

// getsockoptBytes is getsockopt into a byte buffer (unix.GetsockoptString
// stops at the first NUL).
func getsockoptBytes(fd, level, opt int, buf []byte) (int, error) {
	l := uint32(len(buf))
	_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), uintptr(level), uintptr(opt),
		uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&l)), 0)
	if e != 0 {
		return 0, e
	}
	return int(l), nil
}

// Enable hands the directions in dir of a finished crypto/tls connection to
// the kernel. tc must run over rc (tls.Client(rc, ClientConfig(base, rc))
// or tls.Server(rc, cfg) with cfg from ServerConfig), rc over a TCP socket.
// The contract (see the package documentation): Handshake has returned and
// no Read or Write on tc is in progress. Plaintext crypto/tls decrypted
// that the caller has not read yet is taken out of tc without touching the
// socket and returned first by Conn.Read (State.Drained counts it).
//
// Before anything is installed Enable checks that the key log is this
// connection's alone (one client random, each label once), proves the
// derived keys by opening the connection's own records with them, and
// asks SupportedFor about the negotiated version, cipher and dir. A key
// log or proof failure is refused with an error that does not wrap
// ErrUnsupported: it is a bug or an attack, not a kernel limit.
//
// On success use only the returned *Conn. On failure the error says why in
// one line; unless it wraps ErrConnBroken, tc still works in user space
// (rc is switched to pass-through), and errors.Is(err, ErrUnsupported)
// marks "this kernel cannot" (the --ktls auto fallback case).
func Enable(tc *tls.Conn, rc *RecordConn, dir Direction, opts ...Option) (*Conn, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	fail := func(err error) (*Conn, error) {
		if rc != nil {
			rc.Passthrough()
		}
		return nil, err
	}
	if err := Supported(); err != nil {
		return fail(err)
	}
	p, err := prepare(tc, rc, dir)
	if err != nil {
		return fail(err)
	}
	// Probed on a test socket first, so that a kernel that would take TX
	// and refuse RX fails here, with the connection still usable.
	if err := SupportedFor(p.state.Version, p.state.Cipher, dir); err != nil {
		return fail(err)
	}
	sc, ok := rc.Conn.(syscall.Conn)
	if !ok {
		return fail(fmt.Errorf("%w: the connection under TLS is not a socket (in-memory transport?)", ErrUnsupported))
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return fail(fmt.Errorf("ktls: %v", err))
	}
	if err := install(raw, p, o); err != nil {
		if errors.Is(err, ErrConnBroken) {
			rc.Passthrough()
			rc.wrBlocked.Store(true)
			return nil, err
		}
		return fail(err)
	}
	rc.Passthrough()
	rc.wrBlocked.Store(p.tx != nil)
	rc.rdBlocked.Store(p.rx != nil)
	c := &Conn{nc: rc.Conn, raw: raw, tc: tc, state: p.state, isClient: p.isClient}
	if p.rx != nil {
		// Plaintext crypto/tls decrypted but nobody read yet is delivered
		// first; the kernel has what is still in the socket.
		c.pending, c.pendErr = drain(tc, rc)
		c.state.Drained = len(c.pending)
	}
	return c, nil
}

func install(raw syscall.RawConn, p *plan, o options) error {
	name := tls.VersionName(p.state.Version) + " " + p.state.Cipher
	var err error
	cerr := raw.Control(func(fd uintptr) {
		s := int(fd)
		if e := unix.SetsockoptString(s, unix.IPPROTO_TCP, tcpULP, "tls"); e != nil {
			err = ulpError(e)
			return
		}
		if p.tx != nil {
			if e := setCryptoInfo(s, optTLSTX, p.tx); e != nil {
				err = fmt.Errorf("%w: setsockopt TLS_TX (%s): %v", ErrUnsupported, name, e)
				return
			}
		}
		if p.rx != nil {
			if e := setCryptoInfo(s, optTLSRX, p.rx); e != nil {
				if p.tx != nil {
					err = fmt.Errorf("ktls: setsockopt TLS_RX (%s): %v: %w", name, e, ErrConnBroken)
				} else {
					err = fmt.Errorf("%w: setsockopt TLS_RX (%s): %v", ErrUnsupported, name, e)
				}
				return
			}
			if o.rxExpectNoPad && p.state.Version == tls.VersionTLS13 {
				_ = unix.SetsockoptInt(s, solTLS, optNoPad, 1)
			}
		}
	})
	if cerr != nil {
		return fmt.Errorf("ktls: %v", cerr)
	}
	return err
}

// Conn is a connection whose offloaded directions go straight to the
// socket: Write is a plain write(2) the kernel encrypts, Read a recvmsg(2)
// the kernel decrypts; a direction left in user space keeps going through
// the *tls.Conn. It does not implement syscall.Conn on purpose (os.File's
// sendfile fast path would then write plaintext when TX is not offloaded);
// ReadFrom provides sendfile instead.
type Conn struct {
	nc       net.Conn // the TCP socket
	raw      syscall.RawConn
	tc       *tls.Conn // nil only in tests that build a Conn from crypto_info
	state    State
	isClient bool

	rmu         sync.Mutex
	rerr        error
	oob         []byte
	alertBuf    []byte
	hsBuf       []byte
	closeNotify bool
	tickets     int
	// pending is plaintext crypto/tls had decrypted but the caller not yet
	// read when Enable switched (delivered first); pendErr what crypto/tls
	// would have returned after it.
	pending []byte
	pendErr error

	wmu     sync.Mutex
	wclosed bool
	spliced int64 // bytes Splice moved into this Conn through a pipe (under wmu)

	closeOnce sync.Once
	closeErr  error
}

// State reports what Enable configured.
func (c *Conn) State() State { return c.state }

// ConnectionState is the crypto/tls view of the handshake.
func (c *Conn) ConnectionState() tls.ConnectionState {
	if c.tc == nil {
		return tls.ConnectionState{}
	}
	return c.tc.ConnectionState()
}

// CloseNotified reports whether the stream Read (or Splice) ended with
// the peer's close_notify. Both that and a TCP FIN without one end
// reading with io.EOF, as crypto/tls does; a relay tells them apart with
// this, to pass a cut stream on as cut.
func (c *Conn) CloseNotified() bool {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	return c.closeNotify
}

// TicketsSkipped counts TLS 1.3 NewSessionTicket messages that arrived
// after the switch: the kernel hands them over as handshake records and
// Read drops them (they are not added to the ClientSessionCache).
func (c *Conn) TicketsSkipped() int {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	return c.tickets
}

// Verify asks the kernel (getsockopt SOL_TLS TLS_TX/TLS_RX) whether the
// offloaded directions are configured with the expected version and cipher,
// so that a caller (or a test) cannot mistake user-space TLS for kTLS.
func (c *Conn) Verify() error {
	for _, d := range []struct {
		on  bool
		opt int
		n   string
	}{{c.state.TX, optTLSTX, "TLS_TX"}, {c.state.RX, optTLSRX, "TLS_RX"}} {
		if !d.on {
			continue
		}
		ci, err := c.kernelInfo(d.opt)
		if err != nil {
			return fmt.Errorf("ktls: getsockopt %s: %v", d.n, err)
		}
		want := suites[c.state.CipherSuite].cipherType
		if ci.version != c.state.Version || ci.cipherType != want {
			return fmt.Errorf("ktls: kernel %s has version %#04x cipher %d, want %#04x cipher %d", d.n, ci.version, ci.cipherType, c.state.Version, want)
		}
	}
	return nil
}

// kernelInfo reads back the crypto_info the kernel holds for a direction.
func (c *Conn) kernelInfo(opt int) (*cryptoInfo, error) {
	var ci *cryptoInfo
	var err error
	cerr := c.raw.Control(func(fd uintptr) {
		var hdr [4]byte
		if _, err = getsockoptBytes(int(fd), solTLS, opt, hdr[:]); err != nil {
			return
		}
		var probe *cryptoInfo
		if probe, err = parseCryptoInfoHeader(hdr[:]); err != nil {
			return
		}
		buf := make([]byte, cryptoInfoSizes[probe.cipherType])
		var n int
		if n, err = getsockoptBytes(int(fd), solTLS, opt, buf); err != nil {
			return
		}
		ci, err = parseCryptoInfo(buf[:n])
	})
	if cerr != nil {
		return nil, cerr
	}
	return ci, err
}

// Read returns application data. With RX offloaded it handles the records
// the kernel passes up as control messages: close_notify ends the stream
// with io.EOF; other alerts end it with an error naming the alert (TLS 1.2
// warnings are ignored, as crypto/tls does); TLS 1.3 NewSessionTicket
// messages are skipped (see TicketsSkipped); KeyUpdate gives ErrKeyUpdate.
func (c *Conn) Read(p []byte) (int, error) {
	if !c.state.RX {
		return c.tc.Read(p)
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if c.rerr != nil {
		return 0, c.rerr
	}
	if len(p) == 0 {
		return 0, nil
	}
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	if c.pendErr != nil {
		c.rerr = c.pendErr
		return 0, c.rerr
	}
	for {
		n, typ, err := c.recv(p)
		if err != nil {
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				c.rerr = err
			}
			return 0, err
		}
		if typ == recordApplicationData {
			if n > 0 {
				return n, nil
			}
			continue
		}
		if err := c.control(typ, p[:n]); err != nil {
			c.rerr = err
			return 0, err
		}
	}
}

// control handles (part of) a record that is not application data, as
// recvmsg returned it: close_notify gives io.EOF, other alerts an error
// (TLS 1.2 warnings are ignored), post-handshake messages go to
// handshakeMessages. typ 0 means no record at all: the peer closed TCP.
// The caller holds rmu.
func (c *Conn) control(typ byte, b []byte) error {
	switch typ {
	case 0: // no record at all: the peer closed TCP without close_notify
		if len(b) == 0 {
			return io.EOF
		}
		return errors.New("ktls: kernel returned data without a record type")
	case recordAlert:
		c.alertBuf = append(c.alertBuf, b...)
		for len(c.alertBuf) >= 2 {
			level, desc := c.alertBuf[0], c.alertBuf[1]
			c.alertBuf = c.alertBuf[2:]
			switch {
			case desc == 0: // close_notify
				c.closeNotify = true
				return io.EOF
			case c.state.Version == tls.VersionTLS12 && level == 1:
				continue // warning
			default:
				return fmt.Errorf("ktls: remote error: %w", tls.AlertError(desc))
			}
		}
		return nil
	case recordHandshake:
		c.hsBuf = append(c.hsBuf, b...)
		return c.handshakeMessages()
	}
	return fmt.Errorf("ktls: unexpected TLS record type %d after the handshake", typ)
}

// handshakeMessages consumes the complete post-handshake messages in hsBuf.
func (c *Conn) handshakeMessages() error {
	for len(c.hsBuf) >= 4 {
		l := int(c.hsBuf[1])<<16 | int(c.hsBuf[2])<<8 | int(c.hsBuf[3])
		if l > 1<<16 {
			return fmt.Errorf("ktls: post-handshake message of %d bytes", l)
		}
		if len(c.hsBuf) < 4+l {
			return nil
		}
		switch t := c.hsBuf[0]; {
		case t == 4 && c.state.Version == tls.VersionTLS13 && c.isClient: // NewSessionTicket
			c.tickets++
		case t == 24 && c.state.Version == tls.VersionTLS13: // KeyUpdate
			return ErrKeyUpdate
		case t == 0 && c.state.Version == tls.VersionTLS12: // HelloRequest
			return errors.New("ktls: peer asked for renegotiation, which a kTLS connection cannot do")
		default:
			return fmt.Errorf("ktls: unexpected post-handshake message type %d", t)
		}
		c.hsBuf = c.hsBuf[4+l:]
	}
	return nil
}

// recv is one recvmsg(2) with room for the TLS_GET_RECORD_TYPE cmsg.
func (c *Conn) recv(p []byte) (n int, typ byte, err error) {
	if c.oob == nil {
		c.oob = make([]byte, unix.CmsgSpace(1)*2)
	}
	var oobn, flags int
	var serr error
	rerr := c.raw.Read(func(fd uintptr) bool {
		n, oobn, flags, _, serr = unix.Recvmsg(int(fd), p, c.oob, 0)
		return serr != unix.EAGAIN
	})
	if rerr != nil {
		return 0, 0, rerr
	}
	if serr != nil {
		return 0, 0, recvError(serr)
	}
	if flags&unix.MSG_CTRUNC != 0 {
		return 0, 0, errors.New("ktls: recvmsg: control message truncated")
	}
	if oobn > 0 {
		msgs, err := unix.ParseSocketControlMessage(c.oob[:oobn])
		if err != nil {
			return 0, 0, fmt.Errorf("ktls: recvmsg: %v", err)
		}
		for _, m := range msgs {
			if m.Header.Level == solTLS && m.Header.Type == cmsgGetRecordType && len(m.Data) > 0 {
				typ = m.Data[0]
			}
		}
	}
	return n, typ, nil
}

func recvError(e error) error {
	switch {
	case errors.Is(e, unix.EBADMSG):
		return fmt.Errorf("ktls: kernel rejected a record (EBADMSG: authentication failed; wrong key or sequence number, or corrupted data): %w", e)
	case errors.Is(e, unix.EMSGSIZE):
		return fmt.Errorf("ktls: kernel rejected a record (EMSGSIZE: record too long): %w", e)
	case errors.Is(e, unix.EKEYEXPIRED):
		return fmt.Errorf("ktls: kernel waits for a TLS 1.3 re-key after a KeyUpdate, which this package does not do: %w", e)
	case errors.Is(e, unix.EINVAL):
		return fmt.Errorf("ktls: kernel rejected a record (EINVAL: bad header or version): %w", e)
	}
	return os.NewSyscallError("recvmsg", e)
}

// Write writes application data.
func (c *Conn) Write(p []byte) (int, error) {
	if !c.state.TX {
		return c.tc.Write(p)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.wclosed {
		return 0, errors.New("ktls: write after close_notify")
	}
	return c.nc.Write(p)
}

// ReadFrom copies r to the connection. With TX offloaded and r an *os.File
// (or an io.LimitedReader of one) Go's TCP socket uses sendfile(2), so the
// file's pages are encrypted by the kernel without passing through user
// space; io.Copy(conn, file) ends up here. Otherwise it is a buffered copy.
func (c *Conn) ReadFrom(r io.Reader) (int64, error) {
	if c.state.TX {
		if rf, ok := c.nc.(io.ReaderFrom); ok {
			c.wmu.Lock()
			defer c.wmu.Unlock()
			if c.wclosed {
				return 0, errors.New("ktls: write after close_notify")
			}
			return rf.ReadFrom(r)
		}
	}
	return io.Copy(writerOnly{c}, r)
}

type writerOnly struct{ io.Writer }

// sendControl sends one record of the given type (sendmsg with a
// TLS_SET_RECORD_TYPE cmsg).
func (c *Conn) sendControl(typ byte, payload []byte) error {
	oob := make([]byte, unix.CmsgSpace(1))
	h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
	h.Level = solTLS
	h.Type = cmsgSetRecordType
	h.SetLen(unix.CmsgLen(1))
	oob[unix.CmsgLen(0)] = typ
	var serr error
	werr := c.raw.Write(func(fd uintptr) bool {
		_, serr = unix.SendmsgN(int(fd), payload, oob, nil, 0)
		return serr != unix.EAGAIN
	})
	if werr != nil {
		return werr
	}
	if serr != nil {
		return os.NewSyscallError("sendmsg", serr)
	}
	return nil
}

// CloseWrite sends close_notify; the connection can still be read.
func (c *Conn) CloseWrite() error {
	if !c.state.TX {
		return c.tc.CloseWrite()
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.wclosed {
		return nil
	}
	c.wclosed = true
	return c.sendControl(recordAlert, []byte{1, 0}) // warning, close_notify
}

// Close sends close_notify (unless a Write is blocked, as crypto/tls does)
// and closes the socket.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		if !c.state.TX {
			c.closeErr = c.tc.Close()
			return
		}
		var alertErr error
		if c.wmu.TryLock() {
			if !c.wclosed {
				c.wclosed = true
				_ = c.nc.SetWriteDeadline(time.Now().Add(5 * time.Second))
				alertErr = c.sendControl(recordAlert, []byte{1, 0})
			}
			c.wmu.Unlock()
		}
		c.closeErr = c.nc.Close()
		if c.closeErr == nil && alertErr != nil {
			c.closeErr = fmt.Errorf("ktls: close_notify: %w", alertErr)
		}
	})
	return c.closeErr
}

func (c *Conn) LocalAddr() net.Addr                { return c.nc.LocalAddr() }
func (c *Conn) RemoteAddr() net.Addr               { return c.nc.RemoteAddr() }
func (c *Conn) SetDeadline(t time.Time) error      { return c.nc.SetDeadline(t) }
func (c *Conn) SetReadDeadline(t time.Time) error  { return c.nc.SetReadDeadline(t) }
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.nc.SetWriteDeadline(t) }

// ReadTLSStat parses /proc/net/tls_stat (present once the tls module is
// loaded): TlsCurrTxSw, TlsCurrRxSw, TlsTxSw, TlsRxSw, TlsDecryptError, ...
func ReadTLSStat() (map[string]int64, error) {
	f, err := os.Open(tlsStatPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: no %s (tls module not loaded)", ErrUnsupported, tlsStatPath)
		}
		return nil, err
	}
	defer f.Close()
	return parseTLSStat(f)
}
