package ktls

import (
	"bytes"
	"crypto/tls"
	"io"
	"testing"
)

// TestDrainBufferedPlaintext: the peer sends two records back to back and
// the caller reads one byte in user space, so crypto/tls holds the rest of
// the first record. drain hands those bytes over without reading the
// socket (the second record is still there for the kernel, here the
// software model), and all bytes arrive in order. A tls.Conn that is not
// switched after all keeps working: the temporary error did not poison it.
func TestDrainBufferedPlaintext(t *testing.T) {
	t.Parallel()
	for _, vc := range []versionCipher{{tls.VersionTLS12, CipherAES128GCM}, {tls.VersionTLS13, CipherChaCha20Poly1305}} {
		for _, switched := range []bool{true, false} {
			cl, sv := handshakePair(t, vc.version, vc.cipher, true)
			first, second := testStream(31, 1000), testStream(32, 3000)
			if _, err := sv.tc.Write(first); err != nil {
				t.Fatal(err)
			}
			if _, err := sv.tc.Write(second); err != nil {
				t.Fatal(err)
			}
			one := make([]byte, 1)
			if _, err := io.ReadFull(cl.tc, one); err != nil {
				t.Fatal(err)
			}
			p, err := prepare(cl.tc, cl.rc, RX)
			if err != nil {
				t.Fatal(err)
			}
			cl.rc.Passthrough()
			got, err := drain(cl.tc, cl.rc)
			if err != nil || !bytes.Equal(got, first[1:]) {
				t.Fatalf("%v: drained %d bytes, %v; want the %d left of the first record", vc, len(got), err, len(first)-1)
			}
			rest := make([]byte, len(second))
			if switched {
				cl.rc.rdBlocked.Store(true) // as Enable does
				soft := newSoftConn(t, cl.tcp, nil, p.rx)
				_, err = io.ReadFull(soft, rest)
			} else {
				_, err = io.ReadFull(cl.tc, rest)
			}
			all := append(append(one, got...), rest...)
			if err != nil || !bytes.Equal(all, append(append([]byte(nil), first...), second...)) {
				t.Fatalf("%v switched=%v: %d bytes in order? %v", vc, switched, len(all), err)
			}
		}
	}
}

// TestDrainNothingBuffered: with nothing buffered drain returns nothing and
// reads nothing from the socket.
func TestDrainNothingBuffered(t *testing.T) {
	t.Parallel()
	cl, sv := handshakePair(t, tls.VersionTLS13, CipherChaCha20Poly1305, true)
	if _, err := sv.tc.Write([]byte("later")); err != nil {
		t.Fatal(err)
	}
	got, err := drain(cl.tc, cl.rc)
	if len(got) != 0 || err != nil {
		t.Fatalf("drained %q, %v", got, err)
	}
	b := make([]byte, 5)
	if _, err := io.ReadFull(cl.tc, b); err != nil || string(b) != "later" {
		t.Fatalf("read %q, %v after an empty drain", b, err)
	}
}
