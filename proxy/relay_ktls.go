package proxy

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync/atomic"

	"github.com/tlsbench/tlsbench/internal/ktls"
)

// All of the proxy's use of kernel TLS is in this file.

// kernelPolicy is what Options.KTLS allows, decided at New.
type kernelPolicy struct {
	mode string // KTLSOff, KTLSAuto, KTLSOn
	// server is the client leg's configuration with a key log per
	// connection, which Enable needs (nil with KTLSOff).
	server *tls.Config
}

// kernelLeg is a leg's kernel TLS state.
type kernelLeg struct {
	rc   *ktls.RecordConn // under crypto/tls during the handshake (nil: off)
	conn *ktls.Conn       // after Enable
}

// cut reports whether the kernel's side of the leg, having reached the
// end of the stream, found a TCP FIN without a close_notify before it.
func (k kernelLeg) cut() bool { return k.conn != nil && !k.conn.CloseNotified() }

// kernelTLSAvailable reports whether this kernel can do TLS at all.
func kernelTLSAvailable() error { return ktls.Supported() }

func newKernelPolicy(mode string, clientTLS *tls.Config) kernelPolicy {
	k := kernelPolicy{mode: mode}
	if mode != KTLSOff {
		k.server = ktls.ServerConfig(clientTLS)
		// Which versions and ciphers the kernel takes is asked once per
		// process: here, before any connection, rather than inside the
		// first connection of each kind (and the kernel TLS counters of
		// whatever is measured then).
		ktls.ProbeAll()
	}
	return k
}

// noTLS12Tickets is the client leg's GetConfigForClient when kernel TLS
// is required: a client that cannot speak TLS 1.3 gets no session ticket,
// since a resumed TLS 1.2 session has no keys for the kernel
// (ktls.ErrTLS12Resumed) and would be refused at every later connection.
func noTLS12Tickets(base *tls.Config) func(*tls.ClientHelloInfo) (*tls.Config, error) {
	noTickets := base.Clone()
	noTickets.SessionTicketsDisabled = true
	return func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		if slices.Contains(hello.SupportedVersions, tls.VersionTLS13) {
			return nil, nil
		}
		return noTickets, nil
	}
}

// Why a leg the kernel could not take was relayed in user space, the
// keys of Counters.Fallbacks after "client:" or "origin:".
const (
	FallbackTLS12Resumed = "tls12-resumed" // no keys for a resumed TLS 1.2 session
	FallbackEarlyTLS     = "early-tls"     // the client sent TLS before the CONNECT answer
	FallbackUnsupported  = "unsupported"   // the kernel does not take this version or cipher
	FallbackNoKernelTLS  = "no-kernel-tls" // the kernel has no TLS at all (no TLS ULP)
	FallbackError        = "error"         // anything else: the log line says what
)

// errEarlyTLS is a client leg whose first TLS bytes came before the
// CONNECT answer: the record reader did not see them.
var errEarlyTLS = fmt.Errorf("%w: the client sent its TLS before the CONNECT answer", ktls.ErrUnsupported)

// fallbackKind is the Counters.Fallbacks reason of an Enable error.
func fallbackKind(err error) string {
	switch {
	case errors.Is(err, ktls.ErrTLS12Resumed):
		return FallbackTLS12Resumed
	case errors.Is(err, errEarlyTLS):
		return FallbackEarlyTLS
	case errors.Is(err, ktls.ErrNoKernelTLS):
		return FallbackNoKernelTLS
	case errors.Is(err, ktls.ErrUnsupported):
		return FallbackUnsupported
	}
	return FallbackError
}

// wrap returns the connection a leg's crypto/tls runs over: with kernel
// TLS allowed, a record-exact reader that keeps the connection's own key
// log and what Enable must know of its records. It is used whenever the
// mode allows kernel TLS, even where the kernel has none: whether it can
// take a connection depends on the version and cipher negotiated, so it
// is known only after the handshake, and the cost (a read per record)
// ends with the handshake.
func (k kernelPolicy) wrap(l *leg, tcp net.Conn) net.Conn {
	if k.mode == KTLSOff {
		return tcp
	}
	l.k.rc = ktls.WrapConn(tcp)
	return l.k.rc
}

// clientConfig is the origin leg's configuration: its own key log.
func (k kernelPolicy) clientConfig(cfg *tls.Config, l *leg) *tls.Config {
	if l.k.rc == nil {
		return cfg
	}
	return ktls.ClientConfig(cfg, l.k.rc)
}

// serverConfig is the client leg's configuration.
func (k kernelPolicy) serverConfig(cfg *tls.Config, l *leg) *tls.Config {
	if l.k.rc == nil || k.server == nil {
		return cfg
	}
	return k.server
}

// chooseModes hands each leg to the kernel where it can take it (both
// directions of the leg), and sets the legs' relay modes: splice when
// both legs are the kernel's, ktls for a leg the kernel encrypts alone,
// user otherwise. With KTLSAuto a leg the kernel cannot take is relayed
// in user space, saying why (fallback); with KTLSOn it is an error
// that ends the connection.
func (p *Proxy) chooseModes(client, origin *leg) error {
	for _, l := range []*leg{client, origin} {
		l.userSpace()
		if p.kernel.mode == KTLSOff {
			continue
		}
		err := p.enable(l)
		if err == nil {
			continue
		}
		if p.kernel.mode == KTLSOn || errors.Is(err, ktls.ErrConnBroken) {
			return kernelError{leg: l.name, err: err}
		}
		p.fallback(l.name, err)
	}
	if client.k.conn != nil && origin.k.conn != nil {
		client.mode, origin.mode = ModeSplice, ModeSplice
	}
	return nil
}

// fallback counts a leg relayed in user space because the kernel could
// not take it. The first of each leg and reason is logged at info level,
// once per process, so that whoever asked for kernel TLS sees why it is
// not used without turning on debug; the others at debug level.
func (p *Proxy) fallback(leg string, err error) {
	key := leg + ":" + fallbackKind(err)
	p.c.add(p.c.fallback, key)
	msg := "kernel TLS: " + leg + " leg relayed in user space: " + clip(err.Error())
	if _, seen := p.fallbacksLogged.LoadOrStore(key, true); !seen {
		p.log.Info(msg)
		return
	}
	p.connLog.Debug(msg)
}

// enable hands both directions of l to the kernel.
func (p *Proxy) enable(l *leg) error {
	if l.k.rc == nil {
		return errors.New("kernel TLS was not prepared for this connection")
	}
	if len(l.lc.early) > 0 || l.lc.sawEarly {
		// The record reader did not see those bytes: its record counts
		// and key proof would be wrong.
		l.k.rc.Passthrough()
		return errEarlyTLS
	}
	kc, err := ktls.Enable(l.tls, l.k.rc, ktls.Both)
	if err != nil {
		return err
	}
	l.k.conn = kc
	l.rw, l.mode = kc, ModeKTLS
	l.closeWrite = func() error {
		err := kc.CloseWrite()
		if cw, ok := l.tcp.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
		return err
	}
	return nil
}

// kernelError is a leg the kernel had to take and could not.
type kernelError struct {
	leg string
	err error
}

func (e kernelError) Error() string { return e.leg + " leg: kernel TLS: " + e.err.Error() }
func (e kernelError) Unwrap() error { return e.err }

// spliceChunk is how much one Splice call may move before the relay
// marks the connection active: activity is seen at least this often.
const spliceChunk = 1 << 20

// splice moves src to dst inside the kernel, src's decryption feeding
// dst's encryption through a pipe. Only the plaintext crypto/tls held at
// the switch crosses this process. It returns nil at src's clean end.
func (p *Proxy) splice(dst, src *leg, count *atomic.Int64, w *watchdog) error {
	if d := src.k.conn.State().Drained; d > 0 {
		p.c.userSpace.Add(int64(d))
	}
	for {
		n, err := ktls.Splice(dst.k.conn, src.k.conn, spliceChunk)
		if n > 0 {
			w.touch()
			count.Add(n)
		}
		if err != nil {
			return err
		}
		if n < spliceChunk {
			if src.k.cut() {
				return errNoCloseNotify
			}
			return nil
		}
	}
}

// kindKernel is the failure kind of a kernel TLS error: its leg, "ktls".
func kindKernel(err error) string {
	var ke kernelError
	if errors.As(err, &ke) {
		return ke.leg + ":ktls"
	}
	return "relay:ktls"
}
