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

// finished is what prepare reads from a connection whose handshake
// completed: the negotiated suite, the secrets and randoms, and where each
// direction's record stream stands.
type finished struct {
	cs       tls.ConnectionState
	s        suite
	sec      secrets
	cr, sr   [32]byte
	haveSR   bool
	isClient bool
	rd, wr   dirSnapshot
}

// prepare derives the kernel parameters for a finished handshake. It
// consumes the connection's KeyLog entry.
func prepare(tc *tls.Conn, rc *RecordConn, kl *KeyLog, dir Direction) (*plan, error) {
	if dir == 0 || dir&^Both != 0 {
		return nil, fmt.Errorf("ktls: invalid direction %v", dir)
	}
	f, err := readFinished(tc, rc, kl)
	if err != nil {
		return nil, err
	}
	p := &plan{isClient: f.isClient}
	p.state = State{Version: f.cs.Version, CipherSuite: f.cs.CipherSuite, Cipher: f.s.cipher}
	switch f.cs.Version {
	case tls.VersionTLS12:
		err = p.prepare12(f, dir)
	case tls.VersionTLS13:
		err = p.prepare13(f, dir)
	default:
		err = fmt.Errorf("%w: %s", ErrUnsupported, tls.VersionName(f.cs.Version))
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

// readFinished checks that the handshake of tc completed with rc under it
// and kl as its KeyLogWriter, and that both record streams stand between
// records, and gathers what the keys are derived from.
func readFinished(tc *tls.Conn, rc *RecordConn, kl *KeyLog) (*finished, error) {
	if tc == nil || rc == nil || kl == nil {
		return nil, errors.New("ktls: Enable needs the tls.Conn, its RecordConn and the KeyLog of its tls.Config")
	}
	f := &finished{cs: tc.ConnectionState()}
	if !f.cs.HandshakeComplete {
		return nil, errors.New("ktls: Enable called before the handshake completed")
	}
	rc.mu.Lock()
	f.cr, f.sr = rc.clientRandom, rc.serverRandom
	haveCR, roleKnown := rc.haveCR, rc.roleKnown
	f.haveSR, f.isClient = rc.haveSR, rc.isClient
	rc.mu.Unlock()
	if !haveCR || !roleKnown {
		return nil, errors.New("ktls: the RecordConn saw no ClientHello; it must be under the tls.Conn from the start (tls.Client(ktls.WrapConn(c), cfg))")
	}
	var ok bool
	if f.sec, ok = kl.take(f.cr); !ok {
		return nil, errors.New("ktls: no secrets in the KeyLog for this connection; set tls.Config.KeyLogWriter to the KeyLog before the handshake")
	}
	var err error
	if f.s, err = lookupSuite(f.cs.Version, f.cs.CipherSuite); err != nil {
		return nil, err
	}
	f.rd, f.wr = rc.rd.snapshot(), rc.wr.snapshot()
	if !f.rd.atBoundary {
		return nil, errors.New("ktls: crypto/tls is in the middle of reading a record; call Enable between reads")
	}
	if !f.wr.atBoundary {
		return nil, errors.New("ktls: a record was partially written; call Enable between writes")
	}
	return f, nil
}

// prepare12 derives the TLS 1.2 directions in dir from the master secret.
func (p *plan) prepare12(f *finished, dir Direction) error {
	if len(f.sec.master) == 0 {
		return errors.New("ktls: the KeyLog has no CLIENT_RANDOM (master secret) line for this TLS 1.2 connection")
	}
	if !f.haveSR {
		return errors.New("ktls: the RecordConn saw no ServerHello")
	}
	k, err := keyBlock12(f.s, f.sec.master, f.cr[:], f.sr[:])
	if err != nil {
		return err
	}
	wkey, wiv, rkey, riv := k.clientKey, k.clientIV, k.serverKey, k.serverIV
	if !f.isClient {
		wkey, wiv, rkey, riv = rkey, riv, wkey, wiv
	}
	// Every record after ChangeCipherSpec, starting with Finished, used the
	// new keys; the next one has sequence number = their count.
	if dir&TX != 0 {
		if !f.wr.sawCCS {
			return errors.New("ktls: no ChangeCipherSpec was written; is the handshake really finished?")
		}
		if p.tx, err = newCryptoInfo(versionTLS12, f.s, wkey, wiv, f.wr.afterCCS); err != nil {
			return err
		}
	}
	if dir&RX != 0 {
		if !f.rd.sawCCS {
			return errors.New("ktls: no ChangeCipherSpec was read; is the handshake really finished?")
		}
		if p.rx, err = newCryptoInfo(versionTLS12, f.s, rkey, riv, f.rd.afterCCS); err != nil {
			return err
		}
	}
	return nil
}

// prepare13 derives the TLS 1.3 directions in dir from the first
// application traffic secrets.
func (p *plan) prepare13(f *finished, dir Direction) error {
	if len(f.sec.clientTraffic0) == 0 || len(f.sec.serverTraffic0) == 0 {
		return errors.New("ktls: the KeyLog lacks CLIENT_TRAFFIC_SECRET_0/SERVER_TRAFFIC_SECRET_0 for this TLS 1.3 connection")
	}
	wsec, rsec := f.sec.clientTraffic0, f.sec.serverTraffic0
	if !f.isClient {
		wsec, rsec = rsec, wsec
	}
	var err error
	if dir&TX != 0 {
		if p.tx, err = info13(f.s, wsec, f.wr, "written"); err != nil {
			return err
		}
	}
	if dir&RX != 0 {
		if p.rx, err = info13(f.s, rsec, f.rd, "read"); err != nil {
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
