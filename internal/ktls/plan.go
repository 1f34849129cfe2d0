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
			return h, fmt.Errorf("%w: TLS 1.2 resumed session: crypto/tls does not export its keys", ErrUnsupported)
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

// keys12 derives the TLS 1.2 directions in dir from the master secret.
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
		if !h.wr.sawCCS {
			return errors.New("ktls: no ChangeCipherSpec was written; is the handshake really finished?")
		}
		if p.tx, err = newCryptoInfo(versionTLS12, s, wkey, wiv, h.wr.afterCCS); err != nil {
			return err
		}
	}
	if dir&RX != 0 {
		if !h.rd.sawCCS {
			return errors.New("ktls: no ChangeCipherSpec was read; is the handshake really finished?")
		}
		if p.rx, err = newCryptoInfo(versionTLS12, s, rkey, riv, h.rd.afterCCS); err != nil {
			return err
		}
	}
	return nil
}

// keys13 derives the TLS 1.3 directions in dir from the traffic secrets.
func (p *plan) keys13(s suite, h seen, dir Direction) error {
	if len(h.sec.clientTraffic0) == 0 || len(h.sec.serverTraffic0) == 0 {
		return errors.New("ktls: the key log lacks CLIENT_TRAFFIC_SECRET_0/SERVER_TRAFFIC_SECRET_0 for this TLS 1.3 connection")
	}
	wsec, rsec := h.sec.clientTraffic0, h.sec.serverTraffic0
	if !h.isClient {
		wsec, rsec = rsec, wsec
	}
	var err error
	if dir&TX != 0 {
		if p.tx, err = info13(s, wsec, h.wr, "written"); err != nil {
			return err
		}
	}
	if dir&RX != 0 {
		if p.rx, err = info13(s, rsec, h.rd, "read"); err != nil {
			return err
		}
	}
	return nil
}

// info13 derives one TLS 1.3 direction and finds its sequence number.
func info13(s suite, secret []byte, d dirSnapshot, what string) (*cryptoInfo, error) {
	key, iv, err := trafficKeys13(s, secret)
	if err != nil {
		return nil, err
	}
	ci, err := newCryptoInfo(versionTLS13, s, key, iv, 0)
	if err != nil {
		return nil, err
	}
	rp, err := newRecordProtection(ci)
	if err != nil {
		return nil, err
	}
	seq, err := epochSeq(rp, d, what)
	if err != nil {
		return nil, err
	}
	ci.recSeq = seq
	return ci, nil
}

// epochSeq counts the records protected with the application traffic
// secret 0 among those crypto/tls wrote or read. In TLS 1.3 every
// encrypted record has outer type application_data whether it carries
// handshake messages (handshake keys) or NewSessionTicket/data/alerts
// (application keys), so the boundary is found by trial decryption: the
// first record that opens at sequence number 0 starts the epoch; the ones
// after it must open at 1, 2, ... (a failure there means a KeyUpdate
// happened, which this package does not follow). This counts the server's
// NewSessionTicket records and anything exchanged in user space (such as a
// ping-pong) exactly, without assumptions about crypto/tls internals.
func epochSeq(rp *recordProtection, d dirSnapshot, what string) (uint64, error) {
	for i, rec := range d.retained {
		if _, _, err := rp.open(0, rec); err != nil {
			continue
		}
		for j := i + 1; j < len(d.retained); j++ {
			if _, _, err := rp.open(uint64(j-i), d.retained[j]); err != nil {
				return 0, fmt.Errorf("ktls: %s record %d of the application epoch does not decrypt at sequence %d (key update?)", what, j-i, j-i)
			}
		}
		return d.appRecords - uint64(i), nil
	}
	if d.truncated {
		return 0, fmt.Errorf("ktls: %d encrypted records %s before Enable and none of the first %d starts the application epoch; call Enable right after the handshake", d.appRecords, what, len(d.retained))
	}
	return 0, nil // no application-epoch record yet
}
