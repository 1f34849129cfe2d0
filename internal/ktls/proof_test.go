package ktls

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// tamperLog rewrites the secret of one label (the last hex digit changes),
// keeping the line's client random: a wrong secret for the right
// connection, which no bookkeeping check can see.
type tamperLog struct {
	w     io.Writer
	label string
	hits  int
}

func (t *tamperLog) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, []byte(t.label+" ")) && len(p) > 2 {
		q := append([]byte(nil), p...)
		i := len(q) - 2 // the last hex digit before the newline
		if q[i] == '0' {
			q[i] = '1'
		} else {
			q[i] = '0'
		}
		t.hits++
		if _, err := t.w.Write(q); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return t.w.Write(p)
}

// TestKeysProvenBeforeInstall: a key log line with a wrong secret for the
// right client random is caught by decrypting the connection's own
// records with the derived keys (TLS 1.2: each direction's Finished;
// TLS 1.3: the handshake records, then the application records), before
// anything reaches the kernel. The refusal is not "unsupported" (it is a
// bug or an attack) and the connection carries on in user space.
func TestKeysProvenBeforeInstall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		vc    versionCipher
		label string
		dir   Direction
	}{
		{versionCipher{tls.VersionTLS12, CipherAES128GCM}, labelTLS12, TX},
		{versionCipher{tls.VersionTLS12, CipherAES256GCM}, labelTLS12, RX},
		{versionCipher{tls.VersionTLS12, CipherChaCha20Poly1305}, labelTLS12, Both},
		{versionCipher{tls.VersionTLS13, CipherAES128GCM}, labelClientTraffic, TX},
		{versionCipher{tls.VersionTLS13, CipherChaCha20Poly1305}, labelServerTraffic, RX},
		{versionCipher{tls.VersionTLS13, CipherChaCha20Poly1305}, labelClientHandshake, TX},
		{versionCipher{tls.VersionTLS13, CipherAES128GCM}, labelServerHandshake, RX},
	} {
		t.Run(fmt.Sprintf("%v/%s/%v", tc.vc, tc.label, tc.dir), func(t *testing.T) {
			t.Parallel()
			tamper := &tamperLog{label: tc.label}
			cl, sv := handshakePairOpts(t, tc.vc.version, tc.vc.cipher, true, pairOpts{clientLog: func(w io.Writer) io.Writer {
				tamper.w = w
				return tamper
			}})
			if tamper.hits != 1 {
				t.Fatalf("tampered with %d %s lines, want 1", tamper.hits, tc.label)
			}
			_, err := prepare(cl.tc, cl.rc, tc.dir)
			if err == nil || errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "refusing kernel TLS") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("prepare with a tampered %s: %v", tc.label, err)
			}
			t.Log(err)
			// The peer's own log is intact: its keys prove.
			if _, err := prepare(sv.tc, sv.rc, Both); err != nil {
				t.Errorf("untampered server: %v", err)
			}
			cl.rc.Passthrough() // what Enable does on failure
			sv.rc.Passthrough()
			data := testStream(21, 40<<10)
			sum, n, err := transfer(cl.tc, cl.tc.CloseWrite, sv.tc, data, 16<<10)
			checkTransfer(t, "user space after the refusal", data, sum, n, err)
		})
	}
}

// TestProvenDirections: State.Proven says which offloaded directions had
// a record to prove their keys on.
func TestProvenDirections(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		vc       versionCipher
		pingPong bool
		client   bool
		want     Direction
	}{
		{versionCipher{tls.VersionTLS12, CipherAES128GCM}, false, true, Both}, // the Finished records
		{versionCipher{tls.VersionTLS13, CipherChaCha20Poly1305}, true, true, Both},
		// Right after Handshake a TLS 1.3 client has neither written nor
		// read anything under the application keys (the server's ticket
		// is still in the socket); the server has written its ticket.
		{versionCipher{tls.VersionTLS13, CipherChaCha20Poly1305}, false, true, 0},
		{versionCipher{tls.VersionTLS13, CipherChaCha20Poly1305}, false, false, TX},
	} {
		cl, sv := handshakePair(t, tc.vc.version, tc.vc.cipher, tc.pingPong)
		ep := sv
		if tc.client {
			ep = cl
		}
		p, err := prepare(ep.tc, ep.rc, Both)
		if err != nil {
			t.Fatal(err)
		}
		if p.state.Proven != tc.want {
			t.Errorf("%v ping-pong %v client %v: proven %v, want %v", tc.vc, tc.pingPong, tc.client, p.state.Proven, tc.want)
		}
	}
}

// TestTLS12ResumedUnsupported: crypto/tls logs no secret for a resumed TLS
// 1.2 session, so Enable cannot work and says so as unsupported (the auto
// fallback), on both ends; TLS 1.3 resumption logs its secrets and works.
func TestTLS12ResumedUnsupported(t *testing.T) {
	t.Parallel()
	for _, version := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		scfg, roots := testServerConfig(t, version)
		scfg.SetSessionTicketKeys([][32]byte{{1, 2, 3}})
		cache := tls.NewLRUClientSessionCache(4)
		po := pairOpts{server: scfg, roots: roots, session: cache}
		handshakePairOpts(t, version, CipherChaCha20Poly1305, true, po)
		cl, sv := handshakePairOpts(t, version, CipherChaCha20Poly1305, true, po)
		if !cl.tc.ConnectionState().DidResume {
			t.Fatalf("%s: the second connection did not resume", tls.VersionName(version))
		}
		for _, ep := range []*endpoint{cl, sv} {
			_, err := prepare(ep.tc, ep.rc, Both)
			switch {
			case version == tls.VersionTLS13 && err != nil:
				t.Errorf("TLS 1.3 resumed: %v", err)
			case version == tls.VersionTLS12 && (!errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "TLS 1.2 resumed session: crypto/tls does not export its keys")):
				t.Errorf("TLS 1.2 resumed: %v", err)
			}
		}
	}
}
