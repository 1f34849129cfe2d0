package sessionid

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"sync"
)

// keyLogLabel marks a TLS 1.2 key log line: CLIENT_RANDOM <client random,
// 64 hex digits> <master secret, 96 hex digits> (the NSS key log format).
const keyLogLabel = "CLIENT_RANDOM"

var errKeyLogLine = errors.New("not a TLS 1.2 key log line")

// parseKeyLogLine reads one line of the key log (with or without its
// newline) and returns its client random and master secret. Lines of
// other labels (TLS 1.3's traffic secrets) are errKeyLogLine.
func parseKeyLogLine(line []byte) (clientRandom, masterSecret []byte, err error) {
	line = bytes.TrimSuffix(line, []byte("\n"))
	label, rest, ok := bytes.Cut(line, []byte(" "))
	if !ok || string(label) != keyLogLabel {
		return nil, nil, errKeyLogLine
	}
	cr, ms, ok := bytes.Cut(rest, []byte(" "))
	if !ok || len(cr) != 2*randomLen || len(ms) != 2*masterSecretLen {
		return nil, nil, errKeyLogLine
	}
	clientRandom = make([]byte, randomLen)
	masterSecret = make([]byte, masterSecretLen)
	if _, err := hex.Decode(clientRandom, cr); err != nil {
		return nil, nil, errKeyLogLine
	}
	if _, err := hex.Decode(masterSecret, ms); err != nil {
		return nil, nil, errKeyLogLine
	}
	return clientRandom, masterSecret, nil
}

// keyLog is the KeyLogWriter of one full handshake's configuration: it
// keeps the TLS 1.2 master secrets it is given, by client random, and
// passes every line on to the caller's own writer, if any. crypto/tls
// writes one line per call.
type keyLog struct {
	next io.Writer

	mu      sync.Mutex
	secrets map[[randomLen]byte][]byte
}

func (k *keyLog) Write(line []byte) (int, error) {
	if cr, ms, err := parseKeyLogLine(line); err == nil {
		k.mu.Lock()
		if k.secrets == nil {
			k.secrets = map[[randomLen]byte][]byte{}
		}
		// A configuration is cloned for each handshake, so one line is
		// expected; a bounded map guards against a caller's reuse.
		if len(k.secrets) < 16 {
			k.secrets[[randomLen]byte(cr)] = ms
		}
		k.mu.Unlock()
	}
	if k.next != nil {
		return k.next.Write(line)
	}
	return len(line), nil
}

// masterSecret is the secret logged for clientRandom, or nil.
func (k *keyLog) masterSecret(clientRandom []byte) []byte {
	if len(clientRandom) != randomLen {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.secrets[[randomLen]byte(clientRandom)]
}
