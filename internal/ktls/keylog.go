package ktls

import (
	"bytes"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"sync"
)

// connKeyLog is the key log of exactly one connection: the RecordConn
// owns it, and the tls.Config that ClientConfig or ServerConfig hands to
// crypto/tls for that connection writes into it. Binding the log to the
// connection (instead of looking secrets up by client random in a log
// shared by many connections) means that no peer can make a connection
// install keys that were logged for another one, for example by reusing
// that connection's ClientHello random.
//
// crypto/tls writes each label once per handshake, for one client random.
// Anything else (a second client random, a repeated label, a malformed
// line, more lines than a handshake writes) is an attack or a bug: the
// log is then marked untrusted and Enable refuses the connection.
type connKeyLog struct {
	mu      sync.Mutex
	partial []byte // an unterminated line from the previous Write
	cr      [32]byte
	haveCR  bool
	labels  []string // labels seen, in order (at most maxKeyLogLabels)
	sec     secrets
	bad     error // why the log cannot be trusted; nil while it can
	closed  bool  // secrets wiped (Passthrough or Enable): lines are dropped
}

// secrets are what the key log told about one connection.
type secrets struct {
	master          []byte // TLS 1.2
	clientHandshake []byte // TLS 1.3 handshake traffic secrets (used to
	serverHandshake []byte // find where the application epoch starts)
	clientTraffic0  []byte // TLS 1.3
	serverTraffic0  []byte // TLS 1.3
}

const (
	maxKeyLogLine = 1024
	// maxKeyLogLabels is more than a TLS 1.3 handshake logs (client and
	// server handshake and traffic secrets, exporter, early traffic).
	maxKeyLogLabels = 8
)

// Key log labels (the NSS key log format crypto/tls writes).
const (
	labelTLS12           = "CLIENT_RANDOM"
	labelClientHandshake = "CLIENT_HANDSHAKE_TRAFFIC_SECRET"
	labelServerHandshake = "SERVER_HANDSHAKE_TRAFFIC_SECRET"
	labelClientTraffic   = "CLIENT_TRAFFIC_SECRET_0"
	labelServerTraffic   = "SERVER_TRAFFIC_SECRET_0"
)

// write takes the bytes crypto/tls wrote (one complete line per call;
// partial lines are buffered until their newline arrives).
func (k *connKeyLog) write(p []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return
	}
	data := p
	if len(k.partial) > 0 {
		data = append(k.partial, p...)
		k.partial = nil
	}
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		k.addLine(data[:i])
		data = data[i+1:]
	}
	if len(data) > maxKeyLogLine {
		k.distrust("a key log line longer than %d bytes", maxKeyLogLine)
		return
	}
	if len(data) > 0 {
		k.partial = append([]byte(nil), data...)
	}
}

// distrust records the first reason the log cannot be trusted.
func (k *connKeyLog) distrust(format string, args ...any) {
	if k.bad == nil {
		k.bad = fmt.Errorf(format, args...)
	}
}

func (k *connKeyLog) addLine(line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	f := bytes.Fields(line)
	if len(f) != 3 {
		k.distrust("a malformed key log line")
		return
	}
	var cr [32]byte
	if n, err := hex.Decode(cr[:], f[1]); err != nil || n != 32 || len(f[1]) != 64 {
		k.distrust("a key log line with a malformed client random")
		return
	}
	switch {
	case !k.haveCR:
		k.cr, k.haveCR = cr, true
	case cr != k.cr:
		k.distrust("a second client random in one connection's key log")
		return
	}
	label := string(f[0])
	for _, l := range k.labels {
		if l == label {
			k.distrust("%s logged twice for one connection", label)
			return
		}
	}
	if len(k.labels) >= maxKeyLogLabels {
		k.distrust("more key log lines than one handshake writes")
		return
	}
	k.labels = append(k.labels, label)
	secret := make([]byte, hex.DecodedLen(len(f[2])))
	if _, err := hex.Decode(secret, f[2]); err != nil || len(secret) == 0 || len(secret) > 64 {
		k.distrust("a key log line with a malformed secret")
		return
	}
	switch label {
	case labelTLS12:
		k.sec.master = secret
	case labelClientHandshake:
		k.sec.clientHandshake = secret
	case labelServerHandshake:
		k.sec.serverHandshake = secret
	case labelClientTraffic:
		k.sec.clientTraffic0 = secret
	case labelServerTraffic:
		k.sec.serverTraffic0 = secret
	}
	// Exporter and early-traffic secrets are not needed; their labels still
	// count against repetition.
}

// take returns what was logged (the secrets, the client random, whether
// the log is trustworthy) and wipes it: the secrets are used once.
func (k *connKeyLog) take() (secrets, [32]byte, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	sec, cr, have, bad := k.sec, k.cr, k.haveCR, k.bad
	k.sec = secrets{}
	k.closed = true
	k.partial = nil
	return sec, cr, have, bad
}

// wipe drops the secrets of a connection that stays in user space.
func (k *connKeyLog) wipe() {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, s := range [][]byte{k.sec.master, k.sec.clientHandshake, k.sec.serverHandshake, k.sec.clientTraffic0, k.sec.serverTraffic0} {
		clear(s)
	}
	k.sec = secrets{}
	k.closed = true
	k.partial = nil
}

// keyLogWriter is the tls.Config.KeyLogWriter of one connection's config:
// it feeds the connection's log and, if the base config had a writer (an
// SSLKEYLOGFILE for Wireshark, say), still gives it every line unchanged.
type keyLogWriter struct {
	log *connKeyLog
	tee io.Writer
}

func (w *keyLogWriter) Write(p []byte) (int, error) {
	if w.tee != nil {
		if _, err := w.tee.Write(p); err != nil {
			return 0, err
		}
	}
	w.log.write(p)
	return len(p), nil
}

// teeOf is the writer a per-connection config passes lines on to: the
// base config's own writer, unless that is itself a per-connection writer
// (a config from ClientConfig reused as a base), whose log belongs to
// another connection.
func teeOf(w io.Writer) io.Writer {
	if kw, ok := w.(*keyLogWriter); ok {
		return kw.tee
	}
	return w
}

// ClientConfig returns a clone of base for one client connection over rc
// (tls.Client(rc, ktls.ClientConfig(base, rc))): its KeyLogWriter logs into
// rc, and still passes every line to base.KeyLogWriter if that is set.
// Use each clone for one connection only: a second handshake with it
// makes Enable refuse both connections.
func ClientConfig(base *tls.Config, rc *RecordConn) *tls.Config {
	cfg := base.Clone()
	cfg.KeyLogWriter = &keyLogWriter{log: &rc.keys, tee: teeOf(base.KeyLogWriter)}
	return cfg
}

// ServerConfig returns a clone of base for a server whose connections may
// switch to kTLS. Its GetConfigForClient finds the *RecordConn under the
// connection being handshaken (hello.Conn, following NetConn() net.Conn
// methods through wrappers such as a *tls.Conn's) and returns a clone
// that logs into it; base's own GetConfigForClient, if set, still decides
// the config first, and base.KeyLogWriter still receives every line. A
// connection without a RecordConn underneath is served by base's config,
// unlogged (Enable then refuses it).
func ServerConfig(base *tls.Config) *tls.Config {
	outer := base.Clone()
	inner := base.GetConfigForClient
	outer.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		var cfg *tls.Config
		if inner != nil {
			c, err := inner(hello)
			if err != nil {
				return nil, err
			}
			cfg = c
		}
		rc := findRecordConn(hello.Conn)
		if rc == nil {
			return cfg, nil
		}
		if cfg == nil {
			cfg = base
		}
		perConn := cfg.Clone()
		perConn.GetConfigForClient = nil
		perConn.KeyLogWriter = &keyLogWriter{log: &rc.keys, tee: teeOf(cfg.KeyLogWriter)}
		return perConn, nil
	}
	return outer
}

// maxUnwrap bounds the NetConn() chain followed to find a RecordConn.
const maxUnwrap = 16

// findRecordConn returns the *RecordConn c is or wraps, or nil.
func findRecordConn(c net.Conn) *RecordConn {
	for range maxUnwrap {
		switch x := c.(type) {
		case *RecordConn:
			return x
		case interface{ NetConn() net.Conn }:
			c = x.NetConn()
		default:
			return nil
		}
	}
	return nil
}
