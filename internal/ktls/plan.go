package ktls

import (
	"crypto/tls"
	"errors"
	"fmt"
)

// plan is everything Enable hands to the kernel, computed without touching
// the socket (so it is testable on any OS).
type plan struct {
	state    State
	isClient bool
	tx, rx   *cryptoInfo // nil when that direction stays in user space
}

// seen is what the RecordConn and its key log saw of one handshake.
type seen struct {
	sec      secrets
	cr, sr   [32]byte
	haveSR   bool
	isClient bool
	rd, wr   dirSnapshot
}

// prepare derives the kernel parameters for a finished handshake. It
// consumes the connection's key log.
func prepare(tc *tls.Conn, rc *RecordConn, dir Direction) (*plan, error) {
	if dir == 0 || dir&^Both != 0 {
		return nil, fmt.Errorf("ktls: invalid direction %v", dir)
	}
	if tc == nil || rc == nil {
		return nil, errors.New("ktls: enabling kernel TLS needs the TLS connection and the record-exact connection under it")
	}
	cs := tc.ConnectionState()
	if !cs.HandshakeComplete {
		return nil, errors.New("ktls: Enable called before the handshake completed")
	}
	h, err := observed(rc, cs)
	if err != nil {
		return nil, err
	}
	s, err := lookupSuite(cs.Version, cs.CipherSuite)
	if err != nil {
		return nil, err
	}
	if err := h.atBoundary(); err != nil {
		return nil, err
	}
	p := &plan{isClient: h.isClient}
	p.state = State{Version: cs.Version, CipherSuite: cs.CipherSuite, Cipher: s.cipher}
	switch cs.Version {
	case tls.VersionTLS12:
		err = p.keys12(s, h, dir)
	case tls.VersionTLS13:
		err = p.keys13(s, h, dir)
	default:
		err = fmt.Errorf("%w: %s", ErrUnsupported, tls.VersionName(cs.Version))
	}
	if err != nil {
		return nil, err
	}
	if cs.Version == tls.VersionTLS12 {
		p.state.Proven = dir // each direction's Finished opened
	}
	if p.tx != nil {
		p.state.TX, p.state.TXSeq = true, p.tx.recSeq
	}
	if p.rx != nil {
		p.state.RX, p.state.RXSeq = true, p.rx.recSeq
	}
	return p, nil
}

// observed collects what rc and its key log saw of the handshake, and
// refuses a key log that is not this connection's alone.
func observed(rc *RecordConn, cs tls.ConnectionState) (seen, error) {
	var h seen
	rc.mu.Lock()
	h.cr, h.sr = rc.clientRandom, rc.serverRandom
	haveCR, roleKnown := rc.haveCR, rc.roleKnown
	h.haveSR, h.isClient = rc.haveSR, rc.isClient
	rc.mu.Unlock()
	sec, loggedCR, logged, bad := rc.keys.take()
	h.sec = sec
	if !haveCR || !roleKnown {
		return h, errors.New("ktls: no ClientHello was seen under the TLS connection; the record-exact wrapper must be in place before the handshake")
	}
	if bad != nil {
		return h, fmt.Errorf("ktls: refusing kernel TLS: the connection's key log is not its own: %v", bad)
	}
	if !logged {
		if cs.Version == tls.VersionTLS12 && cs.DidResume {
			return h, ErrTLS12Resumed
		}
		return h, errors.New("ktls: no secrets were logged for this connection; its tls.Config must come from ClientConfig or ServerConfig")
	}
	if loggedCR != h.cr {
		return h, errors.New("ktls: refusing kernel TLS: the key log's client random is not the one this connection's ClientHello carried")
	}
	h.rd, h.wr = rc.rd.snapshot(), rc.wr.snapshot()
	return h, nil
}

// atBoundary checks that both directions stand between records.
func (h seen) atBoundary() error {
	if !h.rd.atBoundary {
		return errors.New("ktls: crypto/tls is in the middle of reading a record; call Enable between reads")
	}
	if !h.wr.atBoundary {
		return errors.New("ktls: a record was partially written; call Enable between writes")
	}
	return nil
}

// keys12 derives the TLS 1.2 directions in dir from the master secret and
// proves each on the direction's Finished record.
func (p *plan) keys12(s suite, h seen, dir Direction) error {
	if len(h.sec.master) == 0 {
		return errors.New("ktls: the key log has no CLIENT_RANDOM (master secret) line for this TLS 1.2 connection")
	}
	if !h.haveSR {
		return errors.New("ktls: no ServerHello was seen under the TLS connection")
	}
	k, err := keyBlock12(s, h.sec.master, h.cr[:], h.sr[:])
	if err != nil {
		return err
	}
	wkey, wiv, rkey, riv := k.clientKey, k.clientIV, k.serverKey, k.serverIV
	if !h.isClient {
		wkey, wiv, rkey, riv = rkey, riv, wkey, wiv
	}
	// Every record after ChangeCipherSpec, starting with Finished, used
	// the new keys; the next one has sequence number = their count.
	if dir&TX != 0 {
		if p.tx, err = info12(s, wkey, wiv, h.wr, "written"); err != nil {
			return err
		}
	}
	if dir&RX != 0 {
		if p.rx, err = info12(s, rkey, riv, h.rd, "read"); err != nil {
			return err
		}
	}
	return nil
}

// info12 builds one TLS 1.2 direction after proving its keys: the first
// record after ChangeCipherSpec must open at sequence 0 and hold a
// Finished message.
func info12(s suite, key, iv []byte, d dirSnapshot, what string) (*cryptoInfo, error) {
	if !d.sawCCS {
		return nil, fmt.Errorf("ktls: no ChangeCipherSpec was %s; is the handshake really finished?", what)
	}
	ci, err := newCryptoInfo(versionTLS12, s, key, iv, d.afterCCS)
	if err != nil {
		return nil, err
	}
	if d.afterCCS0 == nil {
		return nil, fmt.Errorf("ktls: refusing kernel TLS: the Finished record %s was not kept, so the keys cannot be proven", what)
	}
	rp, err := newRecordProtection(ci)
	if err != nil {
		return nil, err
	}
	typ, pt, err := rp.open(0, d.afterCCS0)
	if err != nil || typ != recordHandshake || len(pt) != 16 || pt[0] != 20 || pt[1] != 0 || pt[2] != 0 || pt[3] != 12 {
		return nil, fmt.Errorf("ktls: refusing kernel TLS: the derived keys do not open the Finished record %s (wrong key log line?)", what)
	}
	return ci, nil
}

// keys13 derives the TLS 1.3 directions in dir from the traffic secrets.
func (p *plan) keys13(s suite, h seen, dir Direction) error {
	sec := h.sec
	if len(sec.clientTraffic0) == 0 || len(sec.serverTraffic0) == 0 || len(sec.clientHandshake) == 0 || len(sec.serverHandshake) == 0 {
		return errors.New("ktls: the key log lacks the handshake or application traffic secrets of this TLS 1.3 connection")
	}
	whs, wsec, rhs, rsec := sec.clientHandshake, sec.clientTraffic0, sec.serverHandshake, sec.serverTraffic0
	if !h.isClient {
		whs, wsec, rhs, rsec = rhs, rsec, whs, wsec
	}
	if dir&TX != 0 {
		ci, proven, err := info13(s, whs, wsec, h.wr, "written")
		if err != nil {
			return err
		}
		p.tx = ci
		if proven {
			p.state.Proven |= TX
		}
	}
	if dir&RX != 0 {
		ci, proven, err := info13(s, rhs, rsec, h.rd, "read")
		if err != nil {
			return err
		}
		p.rx = ci
		if proven {
			p.state.Proven |= RX
		}
	}
	return nil
}

// open13 is record protection for a TLS 1.3 traffic secret.
func open13(s suite, secret []byte) (*recordProtection, error) {
	key, iv, err := trafficKeys13(s, secret)
	if err != nil {
		return nil, err
	}
	ci, err := newCryptoInfo(versionTLS13, s, key, iv, 0)
	if err != nil {
		return nil, err
	}
	return newRecordProtection(ci)
}

// info13 derives one TLS 1.3 direction, finds its sequence number and
// proves its keys. In TLS 1.3 every encrypted record has outer type
// application_data whether it carries handshake messages (handshake keys)
// or NewSessionTicket/data/alerts (application keys), so the records are
// accounted for one by one: the first ones must open with the handshake
// traffic secret at sequence 0, 1, ... (at least the Finished), every one
// after them with the application traffic secret at 0, 1, ... Any record
// that opens with neither means a wrong key log line (or a KeyUpdate,
// which this package does not follow): refused. This counts the server's
// NewSessionTicket records and anything exchanged in user space (such as
// a ping-pong) exactly, without assumptions about crypto/tls internals.
// proven is false when no record under the application keys exists yet in
// this direction (nothing to prove them on).
func info13(s suite, hsSecret, appSecret []byte, d dirSnapshot, what string) (ci *cryptoInfo, proven bool, err error) {
	hs, err := open13(s, hsSecret)
	if err != nil {
		return nil, false, err
	}
	app, err := open13(s, appSecret)
	if err != nil {
		return nil, false, err
	}
	n := 0
	for n < len(d.retained) {
		if _, _, err := hs.open(uint64(n), d.retained[n]); err != nil {
			break
		}
		n++
	}
	if n == 0 {
		return nil, false, fmt.Errorf("ktls: refusing kernel TLS: the handshake traffic secret does not open the first encrypted record %s (wrong key log line?)", what)
	}
	for j := n; j < len(d.retained); j++ {
		if _, _, err := app.open(uint64(j-n), d.retained[j]); err != nil {
			if j == n {
				return nil, false, fmt.Errorf("ktls: refusing kernel TLS: the application traffic secret does not open the first application record %s (wrong key log line?)", what)
			}
			return nil, false, fmt.Errorf("ktls: %s record %d of the application epoch does not decrypt at sequence %d (key update?)", what, j-n, j-n)
		}
	}
	if n == len(d.retained) && d.truncated {
		return nil, false, fmt.Errorf("ktls: %d encrypted records %s before Enable, more than are kept; call Enable right after the handshake", d.appRecords, what)
	}
	key, iv, err := trafficKeys13(s, appSecret)
	if err != nil {
		return nil, false, err
	}
	if ci, err = newCryptoInfo(versionTLS13, s, key, iv, d.appRecords-uint64(n)); err != nil {
		return nil, false, err
	}
	return ci, n < len(d.retained), nil
}
