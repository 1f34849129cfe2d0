package ktls

import (
	"bufio"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"testing"

	"github.com/tlsbench/tlsbench/internal/testpki"
)

// vmEnv makes the VM-only tests mandatory (scripts/ktls-vm-test.sh sets it).
const vmEnv = "TLSBENCH_KTLS_VM"

// endpoint is one side of a test connection, handshaken over a RecordConn.
type endpoint struct {
	tc  *tls.Conn
	rc  *RecordConn
	tcp *net.TCPConn
}

// pairOpts varies handshakePairOpts.
type pairOpts struct {
	// clientLog wraps the client's key log writer (nil: as ClientConfig
	// made it); unlogged gives the client no per-connection log at all.
	clientLog func(io.Writer) io.Writer
	unlogged  bool
	// session resumes from this client session cache (nil: a fresh one).
	session tls.ClientSessionCache
	// server is the server's base config and roots the client's trust
	// (nil: a fresh identity); reuse them to resume.
	server *tls.Config
	roots  *x509.CertPool
}

var tls12Suites = map[string]uint16{
	CipherAES128GCM:        tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	CipherAES256GCM:        tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	CipherChaCha20Poly1305: tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
}

// handshakePair connects two crypto/tls endpoints over loopback TCP with
// the given version and cipher. With pingPong the client writes one byte
// and the server answers one, in user space, as the benchmark does (so a
// TLS 1.3 client has read the server's ticket). A TLS 1.3 cipher Go cannot
// be made to negotiate here (AES-256-GCM) skips the test; any other
// failure to configure the client fails it.
func handshakePair(t testing.TB, version uint16, cipher string, pingPong bool) (cl, sv *endpoint) {
	t.Helper()
	return handshakePairOpts(t, version, cipher, pingPong, pairOpts{})
}

// testServerConfig is a server base config for a fresh test identity and
// the pool that trusts it.
func testServerConfig(t testing.TB, version uint16) (*tls.Config, *x509.CertPool) {
	ca, id := testpki.Identity(t)
	return &tls.Config{Certificates: []tls.Certificate{id.TLSCertificate()}, MinVersion: tls.VersionTLS12, MaxVersion: version}, ca.Pool()
}

func handshakePairOpts(t testing.TB, version uint16, cipher string, pingPong bool, po pairOpts) (cl, sv *endpoint) {
	t.Helper()
	scfg, pool := po.server, po.roots
	if scfg == nil {
		scfg, pool = testServerConfig(t, version)
	}
	scfg = ServerConfig(scfg)
	// A session cache makes the client offer psk_key_exchange_modes, without
	// which a Go server sends no TLS 1.3 NewSessionTicket.
	cache := po.session
	if cache == nil {
		cache = tls.NewLRUClientSessionCache(4)
	}
	ccfg := &tls.Config{RootCAs: pool, ServerName: "localhost", MinVersion: tls.VersionTLS12, MaxVersion: version,
		ClientSessionCache: cache}
	if version == tls.VersionTLS12 {
		ccfg.CipherSuites = []uint16{tls12Suites[cipher]}
	} else if err := PreferTLS13Cipher(ccfg, cipher); errors.Is(err, ErrTLS13AES256) {
		t.Skipf("TLS 1.3 %s: %v", cipher, err)
	} else if err != nil {
		t.Fatalf("TLS 1.3 %s: %v", cipher, err)
	}
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type res struct {
		ep  *endpoint
		err error
	}
	ch := make(chan res, 1)
	go func() {
		c, err := ln.AcceptTCP()
		if err != nil {
			ch <- res{nil, err}
			return
		}
		ep := &endpoint{rc: WrapConn(c), tcp: c}
		ep.tc = tls.Server(ep.rc, scfg)
		err = ep.tc.Handshake()
		if err == nil && pingPong {
			b := make([]byte, 1)
			if _, err = io.ReadFull(ep.tc, b); err == nil {
				_, err = ep.tc.Write([]byte{'q'})
			}
		}
		ch <- res{ep, err}
	}()
	c, err := net.DialTCP("tcp", nil, ln.Addr().(*net.TCPAddr))
	if err != nil {
		t.Fatal(err)
	}
	cl = &endpoint{rc: WrapConn(c), tcp: c}
	if !po.unlogged {
		ccfg = ClientConfig(ccfg, cl.rc)
		if po.clientLog != nil {
			ccfg.KeyLogWriter = po.clientLog(ccfg.KeyLogWriter)
		}
	}
	cl.tc = tls.Client(cl.rc, ccfg)
	t.Cleanup(func() { c.Close() })
	if err := cl.tc.Handshake(); err != nil {
		t.Fatalf("client handshake: %v", err)
	}
	if pingPong {
		b := make([]byte, 1)
		if _, err := cl.tc.Write([]byte{'p'}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(cl.tc, b); err != nil {
			t.Fatal(err)
		}
	}
	r := <-ch
	if r.err != nil {
		t.Fatalf("server: %v", r.err)
	}
	sv = r.ep
	t.Cleanup(func() { sv.tcp.Close() })
	cs := cl.tc.ConnectionState()
	if cs.Version != version {
		t.Fatalf("negotiated %s, want %s", tls.VersionName(cs.Version), tls.VersionName(version))
	}
	if got := CipherOf(cs.CipherSuite); got != cipher {
		if version == tls.VersionTLS13 && cipher == CipherAES128GCM {
			t.Skipf("Go negotiated %s for TLS 1.3: no AES hardware on this CPU, so a Go server prefers ChaCha20-Poly1305", tls.CipherSuiteName(cs.CipherSuite))
		}
		t.Fatalf("negotiated %s, want %s", tls.CipherSuiteName(cs.CipherSuite), cipher)
	}
	return cl, sv
}

// testStream is a deterministic pseudo-random byte stream.
func testStream(seed uint64, n int) []byte {
	var s [32]byte
	binary.LittleEndian.PutUint64(s[:], seed)
	b := make([]byte, n)
	mrand.NewChaCha8(s).Read(b)
	return b
}

// transfer writes data through w in chunks of buf bytes, then calls
// closeW (which must send close_notify), while reading r with a buf-sized
// buffer until io.EOF. It returns the SHA-256 and length of what was read.
func transfer(w io.Writer, closeW func() error, r io.Reader, data []byte, buf int) (sum [32]byte, n int64, err error) {
	werr := make(chan error, 1)
	go func() {
		for off := 0; off < len(data); off += buf {
			if _, err := w.Write(data[off:min(off+buf, len(data))]); err != nil {
				werr <- fmt.Errorf("write: %w", err)
				return
			}
		}
		werr <- closeW()
	}()
	h := sha256.New()
	n, err = io.CopyBuffer(h, readerOnly{r}, make([]byte, buf))
	if err != nil {
		err = fmt.Errorf("read after %d bytes: %w", n, err)
	}
	if e := <-werr; e != nil && err == nil {
		err = e
	}
	copy(sum[:], h.Sum(nil))
	return sum, n, err
}

type readerOnly struct{ io.Reader }

func checkTransfer(t testing.TB, what string, data []byte, sum [32]byte, n int64, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if n != int64(len(data)) || sum != sha256.Sum256(data) {
		t.Fatalf("%s: received %d bytes with a different SHA-256 (sent %d)", what, n, len(data))
	}
}

// seal protects one record the way the kernel does for TX (the inverse of
// open). explicitNonce is the TLS 1.2 AES-GCM explicit nonce, which the
// kernel takes from crypto_info.iv and increments per record.
func (rp *recordProtection) seal(seq, explicitNonce uint64, typ byte, pt []byte) []byte {
	overhead := rp.aead.Overhead()
	hdr := func(t byte, n int) []byte { return []byte{t, 3, 3, byte(n >> 8), byte(n)} }
	switch {
	case rp.version == versionTLS13:
		inner := append(append([]byte(nil), pt...), typ)
		h := hdr(recordApplicationData, len(inner)+overhead)
		return rp.aead.Seal(h, rp.xorNonce(seq), inner, h)
	case rp.explicit:
		explicit := binary.BigEndian.AppendUint64(nil, explicitNonce)
		nonce := append(append([]byte(nil), rp.base[:4]...), explicit...)
		out := append(hdr(typ, 8+len(pt)+overhead), explicit...)
		return rp.aead.Seal(out, nonce, pt, aad12(seq, typ, len(pt)))
	default:
		return rp.aead.Seal(hdr(typ, len(pt)+overhead), rp.xorNonce(seq), pt, aad12(seq, typ, len(pt)))
	}
}

// softConn is a software model of the kernel's TLS record layer for one
// socket, configured from the crypto_info Enable would hand to the kernel.
// Talking to an unmodified crypto/tls peer through it checks keys, IVs,
// sequence numbers and struct contents on machines without kTLS.
type softConn struct {
	c            net.Conn
	br           *bufio.Reader
	tx, rx       *recordProtection
	txSeq, rxSeq uint64
	explicit     uint64
	pending      []byte
	tickets      int
	closeNotify  bool
}

func newSoftConn(t testing.TB, c net.Conn, tx, rx *cryptoInfo) *softConn {
	t.Helper()
	s := &softConn{c: c, br: bufio.NewReaderSize(c, 1<<17)}
	var err error
	if tx != nil {
		// Round-trip through the wire format, as the kernel receives it.
		if tx, err = parseCryptoInfo(tx.marshal()); err != nil {
			t.Fatal(err)
		}
		if s.tx, err = newRecordProtection(tx); err != nil {
			t.Fatal(err)
		}
		s.txSeq = tx.recSeq
		if len(tx.iv) == 8 { // TLS 1.2 AES-GCM: the explicit nonce counter
			s.explicit = binary.BigEndian.Uint64(tx.iv)
		}
	}
	if rx != nil {
		if rx, err = parseCryptoInfo(rx.marshal()); err != nil {
			t.Fatal(err)
		}
		if s.rx, err = newRecordProtection(rx); err != nil {
			t.Fatal(err)
		}
		s.rxSeq = rx.recSeq
	}
	return s
}

func (s *softConn) writeRecord(typ byte, p []byte) error {
	rec := s.tx.seal(s.txSeq, s.explicit, typ, p)
	s.txSeq++
	s.explicit++
	_, err := s.c.Write(rec)
	return err
}

func (s *softConn) Write(p []byte) (int, error) {
	for off := 0; off < len(p); off += maxPlaintext {
		if err := s.writeRecord(recordApplicationData, p[off:min(off+maxPlaintext, len(p))]); err != nil {
			return off, err
		}
	}
	return len(p), nil
}

func (s *softConn) closeWrite() error { return s.writeRecord(recordAlert, []byte{1, 0}) }

func (s *softConn) readRecord() (byte, []byte, error) {
	hdr := make([]byte, recordHeaderLen)
	if _, err := io.ReadFull(s.br, hdr); err != nil {
		return 0, nil, err
	}
	rec := make([]byte, recordHeaderLen+int(binary.BigEndian.Uint16(hdr[3:])))
	copy(rec, hdr)
	if _, err := io.ReadFull(s.br, rec[recordHeaderLen:]); err != nil {
		return 0, nil, err
	}
	typ, pt, err := s.rx.open(s.rxSeq, rec)
	if err != nil {
		return 0, nil, fmt.Errorf("record %d: %w", s.rxSeq, err)
	}
	s.rxSeq++
	return typ, pt, nil
}

func (s *softConn) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		typ, pt, err := s.readRecord()
		if err != nil {
			return 0, err
		}
		switch typ {
		case recordApplicationData:
			s.pending = pt
		case recordAlert:
			if len(pt) == 2 && pt[1] == 0 {
				s.closeNotify = true
				return 0, io.EOF
			}
			return 0, fmt.Errorf("alert %d", pt)
		case recordHandshake:
			if len(pt) > 0 && pt[0] == 4 {
				s.tickets++
				continue
			}
			return 0, fmt.Errorf("handshake message %d", pt[0])
		default:
			return 0, errors.New("unexpected record type")
		}
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}
