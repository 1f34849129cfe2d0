package ktls

import (
	"bytes"
	"encoding/hex"
	"io"
	"sync"
)

// KeyLog is an io.Writer for tls.Config.KeyLogWriter that keeps, per
// connection (keyed by the ClientHello random), exactly the secrets kTLS
// needs: the TLS 1.2 master secret (CLIENT_RANDOM lines) or the TLS 1.3
// application traffic secrets (CLIENT_TRAFFIC_SECRET_0,
// SERVER_TRAFFIC_SECRET_0). Handshake-traffic and exporter lines are
// dropped. Enable removes a connection's entry when it uses it; Forget
// removes it for connections that never call Enable; and at most
// MaxEntries connections are held (oldest evicted first), so memory stays
// bounded whatever the caller does.
//
// One KeyLog serves one side: a client and a server in the same process
// that log the same connection must use two KeyLogs, because the first
// Enable consumes the entry.
//
// The zero value is ready to use and safe for concurrent use.
type KeyLog struct {
	// Tee, if set, receives every line unchanged (for example an
	// SSLKEYLOGFILE for Wireshark). Set it before first use.
	Tee io.Writer
	// MaxEntries bounds the connections held; 0 means 4096.
	MaxEntries int

	mu      sync.Mutex
	entries map[[32]byte]*secrets
	order   [][32]byte // insertion order, with lazily skipped removed keys
	partial []byte     // an unterminated line from the previous Write
}

// secrets are what the key log told about one connection.
type secrets struct {
	master         []byte // TLS 1.2
	clientTraffic0 []byte // TLS 1.3
	serverTraffic0 []byte // TLS 1.3
}

const maxKeyLogLine = 1024

// Write implements io.Writer. crypto/tls writes one complete line per call;
// partial lines are buffered until their newline arrives.
func (k *KeyLog) Write(p []byte) (int, error) {
	if k.Tee != nil {
		if _, err := k.Tee.Write(p); err != nil {
			return 0, err
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
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
	if len(data) > 0 && len(data) <= maxKeyLogLine {
		k.partial = append([]byte(nil), data...)
	}
	return len(p), nil
}

func (k *KeyLog) addLine(line []byte) {
	f := bytes.Fields(line)
	if len(f) != 3 {
		return
	}
	var field func(*secrets) *[]byte
	switch string(f[0]) {
	case "CLIENT_RANDOM":
		field = func(s *secrets) *[]byte { return &s.master }
	case "CLIENT_TRAFFIC_SECRET_0":
		field = func(s *secrets) *[]byte { return &s.clientTraffic0 }
	case "SERVER_TRAFFIC_SECRET_0":
		field = func(s *secrets) *[]byte { return &s.serverTraffic0 }
	default:
		return // handshake secrets, exporter, comments: not needed
	}
	var cr [32]byte
	if n, err := hex.Decode(cr[:], f[1]); err != nil || n != 32 || len(f[1]) != 64 {
		return
	}
	secret := make([]byte, hex.DecodedLen(len(f[2])))
	if _, err := hex.Decode(secret, f[2]); err != nil || len(secret) == 0 || len(secret) > 64 {
		return
	}
	if k.entries == nil {
		k.entries = make(map[[32]byte]*secrets)
	}
	e := k.entries[cr]
	if e == nil {
		e = &secrets{}
		k.entries[cr] = e
		k.order = append(k.order, cr)
		k.evict()
	}
	*field(e) = secret
}

func (k *KeyLog) max() int {
	if k.MaxEntries > 0 {
		return k.MaxEntries
	}
	return 4096
}

// evict drops the oldest entries beyond max and compacts the order slice.
func (k *KeyLog) evict() {
	for len(k.entries) > k.max() && len(k.order) > 0 {
		delete(k.entries, k.order[0])
		k.order = k.order[1:]
	}
	if len(k.order) > 2*len(k.entries)+16 {
		live := k.order[:0:0]
		for _, cr := range k.order {
			if _, ok := k.entries[cr]; ok {
				live = append(live, cr)
			}
		}
		k.order = live
	}
}

// take returns and removes the secrets logged for a client random.
func (k *KeyLog) take(clientRandom [32]byte) (secrets, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	e, ok := k.entries[clientRandom]
	if !ok {
		return secrets{}, false
	}
	delete(k.entries, clientRandom)
	k.evict()
	return *e, true
}

// Forget removes what is held for a connection (for example one that stays
// in user space). RecordConn.ClientRandom gives the key.
func (k *KeyLog) Forget(clientRandom [32]byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.entries, clientRandom)
	k.evict()
}

// Len is the number of connections whose secrets are held.
func (k *KeyLog) Len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.entries)
}
