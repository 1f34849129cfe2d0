package ktls

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatalf("bad hex in test: %v", err)
	}
	return b
}

// RFC 8448, section 3 (Simple 1-RTT Handshake), TLS_AES_128_GCM_SHA256.
const (
	rfc8448ClientAppSecret = "9e 40 64 6c e7 9a 7f 9d c0 5a f8 88 9b ce 65 52 87 5a fa 0b 06 df 00 87 f7 92 eb b7 c1 75 04 a5"
	rfc8448ServerAppSecret = "a1 1a f9 f0 55 31 f8 56 ad 47 11 6b 45 a9 50 32 82 04 b4 f4 4b fb 6b 3a 4b 4f 1f 3f cb 63 16 43"
	rfc8448ClientAppKey    = "17 42 2d da 59 6e d5 d9 ac d8 90 e3 c6 3f 50 51"
	rfc8448ClientAppIV     = "5b 78 92 3d ee 08 57 90 33 e5 23 d9"
	rfc8448ServerAppKey    = "9f 02 28 3b 6c 9c 07 ef c2 6b b9 f2 ac 92 e3 56"
	rfc8448ServerAppIV     = "cf 78 2b 88 dd 83 54 9a ad f1 e9 84"
	// {client} send application_data record (the client's first
	// application-key record: sequence 0), payload 00 01 .. 31.
	rfc8448ClientAppRecord = `17 03 03 00 43 a2 3f 70 54 b6 2c 94 d0 af fa fe 82 28 ba 55
		cb ef ac ea 42 f9 14 aa 66 bc ab 3f 2b 98 19 a8 a5 b4 6b 39 5b d5 4a 9a 20 44 1e 2b
		62 97 4e 1f 5a 62 92 a2 97 70 14 bd 1e 3d ea e6 3a ee bb 21 69 49 15 e4`
	// {server} send application_data record: sequence 1, because the
	// server's NewSessionTicket was sequence 0 of its application epoch.
	rfc8448ServerAppRecord = `17 03 03 00 43 2e 93 7e 11 ef 4a c7 40 e5 38 ad 36 00 5f c4
		a4 69 32 fc 32 25 d0 5f 82 aa 1b 36 e3 0e fa f9 7d 90 e6 df fc 60 2d cb 50 1a 59 a8
		fc c4 9c 4b f2 e5 f0 a2 1c 00 47 c2 ab f3 32 54 0d d0 32 e1 67 c2 95 5d`
	// {client} send alert record: close_notify at client sequence 1.
	rfc8448ClientAlertRecord = "17 03 03 00 13 c9 87 27 60 65 56 66 b7 4d 7f f1 15 3e fd 6d b6 d0 b0 e3"
)

func TestTrafficKeys13RFC8448(t *testing.T) {
	t.Parallel()
	s := suites[tls.TLS_AES_128_GCM_SHA256]
	for _, tc := range []struct{ name, secret, key, iv string }{
		{"client", rfc8448ClientAppSecret, rfc8448ClientAppKey, rfc8448ClientAppIV},
		{"server", rfc8448ServerAppSecret, rfc8448ServerAppKey, rfc8448ServerAppIV},
	} {
		key, iv, err := trafficKeys13(s, unhex(t, tc.secret))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(key, unhex(t, tc.key)) {
			t.Errorf("%s key = %x, want %s", tc.name, key, tc.key)
		}
		if !bytes.Equal(iv, unhex(t, tc.iv)) {
			t.Errorf("%s iv = %x, want %s", tc.name, iv, tc.iv)
		}
	}
}

// TestRecordOpenRFC8448 decrypts the RFC's own records with crypto_info
// built the way Enable builds it, which checks the salt/iv split, the nonce
// construction and what a sequence number means.
func TestRecordOpenRFC8448(t *testing.T) {
	t.Parallel()
	s := suites[tls.TLS_AES_128_GCM_SHA256]
	payload := make([]byte, 0x32)
	for i := range payload {
		payload[i] = byte(i)
	}
	for _, tc := range []struct {
		name, secret, record string
		seq                  uint64
		typ                  byte
		want                 []byte
	}{
		{"client data", rfc8448ClientAppSecret, rfc8448ClientAppRecord, 0, recordApplicationData, payload},
		{"server data after ticket", rfc8448ServerAppSecret, rfc8448ServerAppRecord, 1, recordApplicationData, payload},
		{"client close_notify", rfc8448ClientAppSecret, rfc8448ClientAlertRecord, 1, recordAlert, []byte{1, 0}},
	} {
		key, iv, err := trafficKeys13(s, unhex(t, tc.secret))
		if err != nil {
			t.Fatal(err)
		}
		ci, err := newCryptoInfo(versionTLS13, s, key, iv, tc.seq)
		if err != nil {
			t.Fatal(err)
		}
		rp, err := newRecordProtection(ci)
		if err != nil {
			t.Fatal(err)
		}
		typ, pt, err := rp.open(ci.recSeq, unhex(t, tc.record))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if typ != tc.typ || !bytes.Equal(pt, tc.want) {
			t.Errorf("%s: got type %d %x, want type %d %x", tc.name, typ, pt, tc.typ, tc.want)
		}
		// The wrong sequence number must not decrypt: that is what makes
		// the trial decryption in epochSeq exact.
		if _, _, err := rp.open(ci.recSeq+1, unhex(t, tc.record)); err == nil {
			t.Errorf("%s: decrypted at the wrong sequence number", tc.name)
		}
	}
	// The server record is sequence 1: info13 must count the ticket before
	// it. Give it a handshake-key record (the Finished), a stand-in for the
	// ticket record (sealed at 0) and the RFC's record.
	appSecret := unhex(t, rfc8448ServerAppSecret)
	hsSecret := bytes.Repeat([]byte{0x5a}, 32)
	seal := func(secret []byte, seq uint64, typ byte, pt []byte) []byte {
		rp, err := open13(s, secret)
		if err != nil {
			t.Fatal(err)
		}
		return rp.seal(seq, 0, typ, pt)
	}
	finished := seal(hsSecret, 0, recordHandshake, append([]byte{20, 0, 0, 32}, make([]byte, 32)...))
	ticket := seal(appSecret, 0, recordHandshake, []byte{4, 0, 0, 0})
	appRecord := unhex(t, rfc8448ServerAppRecord)
	garbage := append([]byte{23, 3, 3, 0, 20}, make([]byte, 20)...)
	wrong := bytes.Repeat([]byte{0x33}, 32)
	for _, tc := range []struct {
		name       string
		hs, app    []byte
		records    [][]byte
		truncated  bool
		wantSeq    uint64
		wantProven bool
		wantErr    string
	}{
		{"ticket and data", hsSecret, appSecret, [][]byte{finished, ticket, appRecord}, false, 2, true, ""},
		{"handshake only", hsSecret, appSecret, [][]byte{finished}, false, 0, false, ""},
		{"handshake only, more not kept", hsSecret, appSecret, [][]byte{finished}, true, 0, false, "more than are kept"},
		{"wrong application secret", hsSecret, wrong, [][]byte{finished, ticket, appRecord}, false, 0, false, "application traffic secret does not open"},
		{"wrong handshake secret", wrong, appSecret, [][]byte{finished, ticket}, false, 0, false, "handshake traffic secret does not open"},
		{"a record neither opens", hsSecret, appSecret, [][]byte{finished, ticket, garbage}, false, 0, false, "key update"},
		{"no encrypted record", hsSecret, appSecret, nil, false, 0, false, "handshake traffic secret does not open"},
	} {
		d := dirSnapshot{retained: tc.records, appRecords: uint64(len(tc.records)), truncated: tc.truncated}
		if tc.truncated {
			d.appRecords += 5
		}
		ci, proven, err := info13(s, tc.hs, tc.app, d, "written")
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || errors.Is(err, ErrUnsupported) {
				t.Errorf("%s: %v, want an error naming %q", tc.name, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case ci.recSeq != tc.wantSeq || proven != tc.wantProven:
			t.Errorf("%s: sequence %d proven %v, want %d %v", tc.name, ci.recSeq, proven, tc.wantSeq, tc.wantProven)
		}
	}
}

func TestPRF12Vectors(t *testing.T) {
	t.Parallel()
	// The P_SHA256 vector circulated on the IETF TLS list and reproduced by
	// several independent implementations (e.g. `openssl kdf TLS1-PRF`).
	got := prf12(sha256.New, unhex(t, "9bbe436ba940f017b17652849a71db35"), "test label", unhex(t, "a0ba9f936cda311827a6f796ffd5198c"), 100)
	want := unhex(t, `e3f229ba727be17b8d122620557cd453c2aab21d07c3d495329b52d4e61edb5a
		6b301791e90d35c9c9a46b4e14baf9af0fa022f7077def17abfd3797c0564bab
		4fbc91666e9def9b97fce34f796789baa48082d122ee42c5a72e5a5110fff701
		87347b66`)
	if !bytes.Equal(got, want) {
		t.Errorf("P_SHA256 = %x\nwant       %x", got, want)
	}
	// The P_SHA384 vector from the same set (first 48 bytes).
	got = prf12(sha512.New384, unhex(t, "b80b733d6ceefcdc71566ea48e5567df"), "test label", unhex(t, "cd665cf6a8447dd6ff8b27555edb7465"), 48)
	want = unhex(t, "7b0c18e9ced410ed1804f2cfa34a336a1c14dffb4900bb5fd7942107e81c83cde9ca0faa60be9fe34f82b1233c9146a0")
	if !bytes.Equal(got, want) {
		t.Errorf("P_SHA384 = %x\nwant       %x", got, want)
	}
}

// TestKeyBlock12Layout checks that the key block is cut in RFC 5246 order
// (client key, server key, client IV, server IV) and from
// server_random+client_random, by recomputing it with prf12 directly.
func TestKeyBlock12Layout(t *testing.T) {
	t.Parallel()
	master := bytes.Repeat([]byte{0x0b}, 48)
	cr := bytes.Repeat([]byte{0x11}, 32)
	sr := bytes.Repeat([]byte{0x22}, 32)
	for _, id := range []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256} {
		s := suites[id]
		k, err := keyBlock12(s, master, cr, sr)
		if err != nil {
			t.Fatal(err)
		}
		kb := prf12(s.hash, master, "key expansion", append(append([]byte{}, sr...), cr...), 2*s.keyLen+2*s.fixedIVLen)
		got := bytes.Join([][]byte{k.clientKey, k.serverKey, k.clientIV, k.serverIV}, nil)
		if !bytes.Equal(got, kb) {
			t.Errorf("%s: key block cut wrong", tls.CipherSuiteName(id))
		}
		if len(k.clientKey) != s.keyLen || len(k.serverIV) != s.fixedIVLen {
			t.Errorf("%s: lengths %d/%d", tls.CipherSuiteName(id), len(k.clientKey), len(k.serverIV))
		}
	}
}

func TestLookupSuite(t *testing.T) {
	t.Parallel()
	if _, err := lookupSuite(tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA); err == nil {
		t.Error("CBC suite accepted")
	}
	if _, err := lookupSuite(tls.VersionTLS12, tls.TLS_AES_128_GCM_SHA256); err == nil {
		t.Error("TLS 1.3 suite accepted for TLS 1.2")
	}
	if CipherOf(tls.TLS_CHACHA20_POLY1305_SHA256) != CipherChaCha20Poly1305 || CipherOf(tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384) != CipherAES256GCM {
		t.Error("CipherOf")
	}
}
