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

type versionCipher struct {
	version uint16
	cipher  string
}

func (vc versionCipher) String() string {
	return fmt.Sprintf("tls1.%d/%s", vc.version-tls.VersionTLS10, vc.cipher)
}

// allCombos are the version x cipher combinations two Go endpoints can
// negotiate (TLS 1.3 AES-256-GCM cannot be: see PreferTLS13Cipher).
var allCombos = []versionCipher{
	{tls.VersionTLS12, CipherAES128GCM},
	{tls.VersionTLS12, CipherAES256GCM},
	{tls.VersionTLS12, CipherChaCha20Poly1305},
	{tls.VersionTLS13, CipherAES128GCM},
	{tls.VersionTLS13, CipherChaCha20Poly1305},
}

// TestSoftKernelEndToEnd runs the crypto_info that Enable computes through
// a software model of the kernel record layer against an unmodified
// crypto/tls peer, both ways, with and without a user-space ping-pong
// before the switch, on the server and on the client side. It fails if a
// key, IV, salt/IV split, PRF hash, random, role or sequence number is
// wrong (the peer's AEAD rejects the record).
func TestSoftKernelEndToEnd(t *testing.T) {
	t.Parallel()
	for _, vc := range allCombos {
		for _, pingPong := range []bool{true, false} {
			for _, side := range []string{"server", "client"} {
				name := fmt.Sprintf("%v/pingpong=%v/soft=%s", vc, pingPong, side)
				t.Run(name, func(t *testing.T) {
					cl, sv := handshakePair(t, vc.version, vc.cipher, pingPong)
					soft, peer := sv, cl
					if side == "client" {
						soft, peer = cl, sv
					}
					p, err := prepare(soft.tc, soft.rc, Both)
					if err != nil {
						t.Fatal(err)
					}
					soft.rc.Passthrough()
					peer.rc.Passthrough()
					if !soft.rc.keys.closed || soft.rc.keys.sec.master != nil || soft.rc.keys.sec.clientTraffic0 != nil {
						t.Error("key log not consumed")
					}
					t.Logf("TX seq %d, RX seq %d", p.state.TXSeq, p.state.RXSeq)
					if vc.version == tls.VersionTLS12 {
						want := uint64(1)
						if pingPong {
							want = 2 // Finished + ping or pong
						}
						if p.state.TXSeq != want || p.state.RXSeq != want {
							t.Errorf("TLS 1.2 sequence numbers %d/%d, want %d", p.state.TXSeq, p.state.RXSeq, want)
						}
					}
					if vc.version == tls.VersionTLS13 {
						// Go's server sends one NewSessionTicket inside Handshake;
						// the ping-pong adds one record each way.
						pp := uint64(0)
						if pingPong {
							pp = 1
						}
						wantTX, wantRX := pp+1, pp // server
						if side == "client" {
							wantTX, wantRX = pp, 2*pp
						}
						if p.state.TXSeq != wantTX || p.state.RXSeq != wantRX {
							t.Errorf("TLS 1.3 %s sequence numbers TX %d RX %d, want %d %d (one ticket)", side, p.state.TXSeq, p.state.RXSeq, wantTX, wantRX)
						}
					}
					sc := newSoftConn(t, soft.rc.Conn, p.tx, p.rx)
					data := testStream(1, 200<<10)
					sum, n, err := transfer(sc, sc.closeWrite, peer.tc, data, 16<<10)
					checkTransfer(t, "soft kernel -> crypto/tls", data, sum, n, err)

					data = testStream(2, 150<<10)
					sum, n, err = transfer(peer.tc, peer.tc.CloseWrite, sc, data, 4<<10)
					checkTransfer(t, "crypto/tls -> soft kernel", data, sum, n, err)
					if !sc.closeNotify {
						t.Error("close_notify not seen")
					}
					wantTickets := 0
					if vc.version == tls.VersionTLS13 && side == "client" && !pingPong {
						wantTickets = 1 // the server's ticket reached the "kernel"
					}
					if sc.tickets != wantTickets {
						t.Errorf("NewSessionTicket records after the switch: %d, want %d", sc.tickets, wantTickets)
					}
				})
			}
		}
	}
}

// TestTLS12MasterSecretMatchesExporter cross-checks the TLS 1.2 secrets
// Enable works from (master secret from the key log, randoms observed by the
// RecordConn, PRF with the suite's hash) against crypto/tls's own PRF via
// ExportKeyingMaterial (RFC 5705: PRF(master, label, client_random +
// server_random)).
func TestTLS12MasterSecretMatchesExporter(t *testing.T) {
	t.Parallel()
	for _, cipher := range []string{CipherAES128GCM, CipherAES256GCM, CipherChaCha20Poly1305} {
		cl, sv := handshakePair(t, tls.VersionTLS12, cipher, false)
		for _, ep := range []*endpoint{cl, sv} {
			cr, _ := ep.rc.ClientRandom()
			ep.rc.keys.mu.Lock()
			e := ep.rc.keys.sec
			ep.rc.keys.mu.Unlock()
			if len(e.master) != 48 {
				t.Fatalf("%s: no master secret logged", cipher)
			}
			s := suites[ep.tc.ConnectionState().CipherSuite]
			ours := prf12(s.hash, e.master, "EXPERIMENTAL ktls", append(cr[:], ep.rc.serverRandom[:]...), 64)
			cs := ep.tc.ConnectionState()
			theirs, err := cs.ExportKeyingMaterial("EXPERIMENTAL ktls", nil, 64)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ours, theirs) {
				t.Errorf("%s: PRF over the logged master secret and observed randoms differs from crypto/tls's exporter", cipher)
			}
		}
	}
}

// TestEnableFallback: where the kernel cannot do kTLS, Enable says why in
// one line and the connection carries on in user space.
func TestEnableFallback(t *testing.T) {
	t.Parallel()
	if Supported() == nil {
		t.Skip("this kernel supports kTLS")
	}
	cl, sv := handshakePair(t, tls.VersionTLS13, CipherChaCha20Poly1305, true)
	kc, err := Enable(sv.tc, sv.rc, Both)
	if kc != nil || !errors.Is(err, ErrUnsupported) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Enable = %v, %v; want an ErrUnsupported one-liner", kc, err)
	}
	if !sv.rc.keys.closed || sv.rc.keys.sec.clientTraffic0 != nil {
		t.Error("secrets kept after a failed Enable")
	}
	data := testStream(3, 64<<10)
	sum, n, err := transfer(sv.tc, sv.tc.CloseWrite, cl.tc, data, 16<<10)
	checkTransfer(t, "user space after failed Enable", data, sum, n, err)
}

func TestPrepareErrors(t *testing.T) {
	t.Parallel()
	cl, sv := handshakePairOpts(t, tls.VersionTLS13, CipherChaCha20Poly1305, false, pairOpts{unlogged: true})
	if _, err := prepare(cl.tc, cl.rc, Both); err == nil || !strings.Contains(err.Error(), "ClientConfig or ServerConfig") || errors.Is(err, ErrUnsupported) {
		t.Errorf("no per-connection key log: %v", err)
	}
	if _, err := prepare(sv.tc, WrapConn(sv.tcp), Both); err == nil || !strings.Contains(err.Error(), "ClientHello") {
		t.Errorf("RecordConn not under the tls.Conn: %v", err)
	}
	if _, err := prepare(sv.tc, sv.rc, 0); err == nil {
		t.Error("direction 0 accepted")
	}
	// A record half read by crypto/tls: feed a partial header.
	cl2, _ := handshakePair(t, tls.VersionTLS12, CipherAES128GCM, false)
	cl2.rc.rd.mu.Lock()
	cl2.rc.rd.feed([]byte{23, 3}, nil)
	cl2.rc.rd.mu.Unlock()
	if _, err := prepare(cl2.tc, cl2.rc, Both); err == nil || !strings.Contains(err.Error(), "middle") {
		t.Errorf("partial record: %v", err)
	}
}

func TestPreferTLS13Cipher(t *testing.T) {
	t.Parallel()
	cfg := &tls.Config{MinVersion: tls.VersionTLS13}
	if err := PreferTLS13Cipher(cfg, CipherChaCha20Poly1305); err == nil {
		t.Error("TLS 1.3-only config accepted")
	}
	if err := PreferTLS13Cipher(&tls.Config{}, CipherAES256GCM); !errors.Is(err, ErrTLS13AES256) {
		t.Errorf("AES-256: %v", err)
	}
	var _ io.Reader = (*Conn)(nil) // Conn is a reader on every OS
}
