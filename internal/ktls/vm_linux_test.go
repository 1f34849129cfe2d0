//go:build linux

package ktls

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The TestVM* tests need a kernel with kTLS. Outside the VM they skip;
// with TLSBENCH_KTLS_VM=1 (scripts/ktls-vm-test.sh) a missing kTLS fails.
func requireKTLS(t *testing.T) {
	t.Helper()
	if os.Getenv(vmEnv) != "1" {
		t.Skipf("VM-only test: needs a kernel with CONFIG_TLS; run scripts/ktls-vm-test.sh (sets %s=1)", vmEnv)
	}
	if err := Supported(); err != nil {
		t.Fatalf("%s=1 but kTLS is unavailable: %v", vmEnv, err)
	}
}

// vmTimeout bounds every transfer: TCG emulation is slow, a hang is a bug.
const vmTimeout = 90 * time.Second

func deadline(eps ...*endpoint) {
	for _, ep := range eps {
		ep.tcp.SetDeadline(time.Now().Add(vmTimeout))
	}
}

// enable switches an endpoint to kTLS and proves the kernel took it.
func enable(t *testing.T, ep *endpoint, dir Direction) *Conn {
	t.Helper()
	kc, err := Enable(ep.tc, ep.rc, dir)
	if err != nil {
		t.Fatalf("Enable(%v): %v", dir, err)
	}
	if err := kc.Verify(); err != nil {
		t.Fatal(err)
	}
	st := kc.State()
	if st.TX != (dir&TX != 0) || st.RX != (dir&RX != 0) {
		t.Fatalf("State %+v for direction %v", st, dir)
	}
	return kc
}

func tlsStat(t *testing.T) map[string]int64 {
	t.Helper()
	m, err := ReadTLSStat()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkStatDelta asserts that the kernel counted the TX/RX software
// contexts this test created.
func checkStatDelta(t *testing.T, before map[string]int64, tx, rx int64) {
	t.Helper()
	d := StatDelta(before, tlsStat(t))
	if d["TlsTxSw"] < tx || d["TlsRxSw"] < rx {
		t.Errorf("/proc/net/tls_stat: TlsTxSw +%d TlsRxSw +%d, want at least +%d +%d", d["TlsTxSw"], d["TlsRxSw"], tx, rx)
	}
	if d["TlsDecryptError"] != 0 {
		t.Errorf("/proc/net/tls_stat: TlsDecryptError +%d", d["TlsDecryptError"])
	}
}

// TestVMDataIntegrity: every version x cipher x direction, with kTLS on
// the sender only (TX), on the receiver only (RX), and on both ends, a
// deterministic stream checked by SHA-256, ended by close_notify.
func TestVMDataIntegrity(t *testing.T) {
	requireKTLS(t)
	size := 1 << 20
	for _, vc := range allCombos {
		for _, dir := range []string{"c2s", "s2c"} {
			for _, mode := range []string{"ktls-sender", "ktls-receiver", "ktls-both"} {
				t.Run(fmt.Sprintf("%v/%s/%s", vc, dir, mode), func(t *testing.T) {
					cl, sv := handshakePair(t, vc.version, vc.cipher, true)
					deadline(cl, sv)
					snd, rcv := cl, sv
					if dir == "s2c" {
						snd, rcv = sv, cl
					}
					before := tlsStat(t)
					var w io.Writer = snd.tc
					closeW := snd.tc.CloseWrite
					var r io.Reader = rcv.tc
					var kr *Conn
					var ntx, nrx int64
					if mode != "ktls-receiver" {
						d := TX
						if mode == "ktls-both" {
							d = Both
							nrx++
						}
						ks := enable(t, snd, d)
						w, closeW = ks, ks.CloseWrite
						ntx++
					} else {
						snd.rc.Passthrough()
					}
					if mode != "ktls-sender" {
						d := RX
						if mode == "ktls-both" {
							d = Both
							ntx++
						}
						kr = enable(t, rcv, d)
						r = kr
						nrx++
					} else {
						rcv.rc.Passthrough()
					}
					data := testStream(uint64(len(t.Name())), size)
					sum, n, err := transfer(w, closeW, r, data, 16<<10)
					checkTransfer(t, mode, data, sum, n, err)
					if kr != nil && !kr.closeNotify {
						t.Error("kTLS receiver ended without close_notify")
					}
					checkStatDelta(t, before, ntx, nrx)
				})
			}
		}
	}
}

// TestVMTLS13SwitchRightAfterHandshake: no ping-pong; the server's ticket
// (counted into the server's TX sequence) reaches the client's kernel RX
// and is skipped knowingly; data then flows both ways.
func TestVMTLS13SwitchRightAfterHandshake(t *testing.T) {
	requireKTLS(t)
	cl, sv := handshakePair(t, tls.VersionTLS13, CipherChaCha20Poly1305, false)
	deadline(cl, sv)
	kc, ks := enable(t, cl, Both), enable(t, sv, Both)
	if ks.State().TXSeq != 1 {
		t.Errorf("server TX sequence %d, want 1 (its NewSessionTicket)", ks.State().TXSeq)
	}
	data := testStream(7, 256<<10)
	sum, n, err := transfer(ks, ks.CloseWrite, kc, data, 16<<10)
	checkTransfer(t, "server -> client", data, sum, n, err)
	if kc.TicketsSkipped() != 1 {
		t.Errorf("client skipped %d tickets, want 1", kc.TicketsSkipped())
	}
	sum, n, err = transfer(kc, kc.CloseWrite, ks, data, 16<<10)
	checkTransfer(t, "client -> server", data, sum, n, err)
	if err := kc.Close(); err != nil {
		t.Error(err)
	}
	ks.Close()
}

// TestVMSendfile: io.Copy from an *os.File into a kTLS connection goes
// through Conn.ReadFrom (sendfile when TX is offloaded).
func TestVMSendfile(t *testing.T) {
	requireKTLS(t)
	data := testStream(9, 2<<20)
	path := filepath.Join(t.TempDir(), "payload")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, vc := range []versionCipher{{tls.VersionTLS12, CipherAES256GCM}, {tls.VersionTLS13, CipherAES128GCM}} {
		for _, rxMode := range []string{"user-rx", "ktls-rx"} {
			t.Run(fmt.Sprintf("%v/%s", vc, rxMode), func(t *testing.T) {
				cl, sv := handshakePair(t, vc.version, vc.cipher, true)
				deadline(cl, sv)
				ks := enable(t, sv, TX)
				var r io.Reader = cl.tc
				if rxMode == "ktls-rx" {
					r = enable(t, cl, RX)
				} else {
					cl.rc.Passthrough()
				}
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				sent := make(chan error, 1)
				go func() {
					n, err := io.Copy(ks, f) // *os.File -> Conn.ReadFrom -> sendfile
					if err == nil && n != int64(len(data)) {
						err = fmt.Errorf("copied %d bytes", n)
					}
					if err == nil {
						err = ks.CloseWrite()
					}
					sent <- err
				}()
				h := sha256.New()
				n, err := io.Copy(h, readerOnly{r})
				if err != nil {
					t.Fatal(err)
				}
				if err := <-sent; err != nil {
					t.Fatal(err)
				}
				if n != int64(len(data)) || !bytes.Equal(h.Sum(nil), sumOf(data)) {
					t.Fatalf("sendfile: received %d bytes, hash mismatch", n)
				}
			})
		}
	}
}

func sumOf(b []byte) []byte { s := sha256.Sum256(b); return s[:] }

// TestVMCloseNotifyOnWire decodes, in software, what the kernel sent for
// Conn.Close: an encrypted alert record close_notify after the data.
func TestVMCloseNotifyOnWire(t *testing.T) {
	requireKTLS(t)
	for _, vc := range []versionCipher{{tls.VersionTLS12, CipherChaCha20Poly1305}, {tls.VersionTLS13, CipherAES128GCM}} {
		t.Run(vc.String(), func(t *testing.T) {
			cl, sv := handshakePair(t, vc.version, vc.cipher, true)
			deadline(cl, sv)
			p, err := prepare(cl.tc, cl.rc, RX)
			if err != nil {
				t.Fatal(err)
			}
			cl.rc.Passthrough()
			soft := newSoftConn(t, cl.tcp, nil, p.rx)
			ks := enable(t, sv, Both)
			if _, err := ks.Write([]byte("bye")); err != nil {
				t.Fatal(err)
			}
			if err := ks.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(soft)
			if err != nil || string(got) != "bye" || !soft.closeNotify {
				t.Fatalf("read %q, %v, close_notify %v", got, err, soft.closeNotify)
			}
		})
	}
}

// suiteFor maps (version, cipher) to a cipher suite ID, including TLS 1.3
// AES-256-GCM which two Go endpoints never negotiate.
func suiteFor(vc versionCipher) suite {
	if vc.version == tls.VersionTLS12 {
		return suites[tls12Suites[vc.cipher]]
	}
	return map[string]suite{
		CipherAES128GCM:        suites[tls.TLS_AES_128_GCM_SHA256],
		CipherAES256GCM:        suites[tls.TLS_AES_256_GCM_SHA384],
		CipherChaCha20Poly1305: suites[tls.TLS_CHACHA20_POLY1305_SHA256],
	}[vc.cipher]
}

// synthInfo is a random crypto_info for one direction at sequence seq.
func synthInfo(t *testing.T, vc versionCipher, seq uint64) *cryptoInfo {
	s := suiteFor(vc)
	key := make([]byte, s.keyLen)
	ivLen := 12
	if vc.version == tls.VersionTLS12 {
		ivLen = s.fixedIVLen
	}
	iv := make([]byte, ivLen)
	rand.Read(key)
	rand.Read(iv)
	ci, err := newCryptoInfo(vc.version, s, key, iv, seq)
	if err != nil {
		t.Fatal(err)
	}
	return ci
}

// tcpPair is a connected loopback TCP pair.
func tcpPair(t *testing.T) (a, b *net.TCPConn) {
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	a, err = net.DialTCP("tcp", nil, ln.Addr().(*net.TCPAddr))
	if err != nil {
		t.Fatal(err)
	}
	b, err = ln.AcceptTCP()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	a.SetDeadline(time.Now().Add(vmTimeout))
	b.SetDeadline(time.Now().Add(vmTimeout))
	return a, b
}

// kernelConn puts crypto_info straight on a socket (no handshake).
func kernelConn(t *testing.T, c *net.TCPConn, vc versionCipher, tx, rx *cryptoInfo, isClient bool) *Conn {
	t.Helper()
	raw, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	s := suiteFor(vc)
	p := &plan{isClient: isClient, tx: tx, rx: rx, state: State{Version: vc.version, CipherSuite: s.id, Cipher: s.cipher, TX: tx != nil, RX: rx != nil}}
	if err := install(raw, p, options{rxExpectNoPad: true}); err != nil {
		t.Fatal(err)
	}
	kc := &Conn{nc: c, raw: raw, state: p.state, isClient: isClient}
	if err := kc.Verify(); err != nil {
		t.Fatal(err)
	}
	// The kernel holds exactly the key we gave it.
	if tx != nil {
		got, err := kc.kernelInfo(optTLSTX)
		if err != nil || !bytes.Equal(got.key, tx.key) || !bytes.Equal(got.salt, tx.salt) || got.recSeq != tx.recSeq {
			t.Fatalf("getsockopt TLS_TX does not return what was set: %v", err)
		}
	}
	return kc
}

// TestVMKernelRecordLayer checks the kernel against the software record
// layer for every version x cipher, TLS 1.3 AES-256-GCM included (which
// Go endpoints never negotiate), at non-zero starting sequence numbers,
// and kernel to kernel.
func TestVMKernelRecordLayer(t *testing.T) {
	requireKTLS(t)
	combos := append(append([]versionCipher(nil), allCombos...), versionCipher{tls.VersionTLS13, CipherAES256GCM})
	for _, vc := range combos {
		t.Run(vc.String(), func(t *testing.T) {
			a2b, b2a := synthInfo(t, vc, 5), synthInfo(t, vc, 3)
			data := testStream(11, 300<<10)

			a, b := tcpPair(t)
			ka := kernelConn(t, a, vc, a2b, b2a, false)
			soft := newSoftConn(t, b, b2a, a2b)
			sum, n, err := transfer(ka, ka.CloseWrite, soft, data, 64<<10)
			checkTransfer(t, "kernel -> software", data, sum, n, err)
			sum, n, err = transfer(soft, soft.closeWrite, ka, data, 4<<10)
			checkTransfer(t, "software -> kernel", data, sum, n, err)

			a, b = tcpPair(t)
			ka = kernelConn(t, a, vc, a2b, b2a, false)
			kb := kernelConn(t, b, vc, b2a, a2b, true)
			sum, n, err = transfer(ka, ka.CloseWrite, kb, data, 16<<10)
			checkTransfer(t, "kernel -> kernel", data, sum, n, err)
		})
	}
}

// TestVMControlRecords: what Conn.Read does with alerts and post-handshake
// messages the kernel hands up.
func TestVMControlRecords(t *testing.T) {
	requireKTLS(t)
	vc := versionCipher{tls.VersionTLS13, CipherAES128GCM}
	hs := func(typ byte, body []byte) []byte {
		return append([]byte{typ, 0, 0, byte(len(body))}, body...)
	}
	for _, tc := range []struct {
		name    string
		send    func(*softConn) error
		wantErr string // "" means io.EOF after "hello"
		tickets int
	}{
		{"ticket then close_notify", func(s *softConn) error {
			if err := s.writeRecord(recordHandshake, hs(4, make([]byte, 40))); err != nil {
				return err
			}
			return s.closeWrite()
		}, "", 1},
		{"fatal alert", func(s *softConn) error { return s.writeRecord(recordAlert, []byte{2, 40}) }, "handshake failure", 0},
		{"key update", func(s *softConn) error { return s.writeRecord(recordHandshake, hs(24, []byte{0})) }, "KeyUpdate", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a2b, b2a := synthInfo(t, vc, 0), synthInfo(t, vc, 0)
			a, b := tcpPair(t)
			ka := kernelConn(t, a, vc, a2b, b2a, true)
			soft := newSoftConn(t, b, b2a, a2b)
			if _, err := soft.Write([]byte("hello")); err != nil {
				t.Fatal(err)
			}
			if err := tc.send(soft); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(ka)
			if string(got) != "hello" {
				t.Errorf("read %q before the control record", got)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("want io.EOF, got %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("want an error naming %q, got %v", tc.wantErr, err)
			}
			if tc.wantErr == "KeyUpdate" && !errors.Is(err, ErrKeyUpdate) {
				t.Errorf("want ErrKeyUpdate, got %v", err)
			}
			if ka.TicketsSkipped() != tc.tickets {
				t.Errorf("tickets skipped %d, want %d", ka.TicketsSkipped(), tc.tickets)
			}
		})
	}
}

// TestVMTLSStatCounters: enabling TX and RX shows up in /proc/net/tls_stat.
func TestVMTLSStatCounters(t *testing.T) {
	requireKTLS(t)
	before := tlsStat(t)
	cl, sv := handshakePair(t, tls.VersionTLS12, CipherAES128GCM, true)
	deadline(cl, sv)
	kc, ks := enable(t, cl, Both), enable(t, sv, Both)
	cur := tlsStat(t)
	if cur["TlsCurrTxSw"] < 2 || cur["TlsCurrRxSw"] < 2 {
		t.Errorf("TlsCurrTxSw %d TlsCurrRxSw %d with two kTLS connections open", cur["TlsCurrTxSw"], cur["TlsCurrRxSw"])
	}
	kc.Close()
	ks.Close()
	checkStatDelta(t, before, 2, 2)
	t.Logf("tls_stat delta: %v", StatDelta(before, tlsStat(t)))
}

// TestVMBench measures bulk throughput, user-space crypto/tls against kTLS
// (sender TX offloaded; and both ends offloaded), at 4k/16k/64k
// application buffers, and logs a table of lines starting with KTLS-BENCH.
// TCG emulation distorts absolute figures; the ratios are what matter.
func TestVMBench(t *testing.T) {
	requireKTLS(t)
	mb := 4
	if v, err := strconv.Atoi(os.Getenv("TLSBENCH_KTLS_BENCH_MB")); err == nil && v > 0 {
		mb = v
	}
	size := mb << 20
	data := testStream(13, size)
	t.Logf("KTLS-BENCH %-6s %-17s %6s %10s %10s %10s %8s %8s", "tls", "cipher", "buffer", "user MB/s", "ktls-tx", "ktls-both", "tx/user", "both/user")
	for _, vc := range []versionCipher{{tls.VersionTLS13, CipherAES128GCM}, {tls.VersionTLS13, CipherChaCha20Poly1305}, {tls.VersionTLS12, CipherAES256GCM}} {
		for _, buf := range []int{4 << 10, 16 << 10, 64 << 10} {
			rate := map[string]float64{}
			for _, mode := range []string{"user", "ktls-tx", "ktls-both"} {
				cl, sv := handshakePair(t, vc.version, vc.cipher, true)
				deadline(cl, sv)
				var w io.Writer = sv.tc
				closeW := sv.tc.CloseWrite
				var r io.Reader = cl.tc
				switch mode {
				case "user":
					sv.rc.Passthrough()
					cl.rc.Passthrough()
				case "ktls-tx":
					ks := enable(t, sv, TX)
					w, closeW = ks, ks.CloseWrite
					cl.rc.Passthrough()
				case "ktls-both":
					ks := enable(t, sv, Both)
					w, closeW = ks, ks.CloseWrite
					r = enable(t, cl, Both)
				}
				start := time.Now()
				sum, n, err := transfer(w, closeW, r, data, buf)
				el := time.Since(start)
				checkTransfer(t, mode, data, sum, n, err)
				rate[mode] = float64(size) / el.Seconds() / 1e6
			}
			t.Logf("KTLS-BENCH %-6s %-17s %6s %10.1f %10.1f %10.1f %7.2fx %7.2fx", fmt.Sprintf("1.%d", vc.version-tls.VersionTLS10), vc.cipher, fmt.Sprintf("%dk", buf>>10),
				rate["user"], rate["ktls-tx"], rate["ktls-both"], rate["ktls-tx"]/rate["user"], rate["ktls-both"]/rate["user"])
		}
	}
}
