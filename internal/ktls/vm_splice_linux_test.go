//go:build linux

package ktls

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// swDelta is how many kernel TLS contexts of a direction ("Tx", "Rx") were
// created between two tls_stat readings, software or device.
func swDelta(d map[string]int64, dir string) int64 {
	return d["Tls"+dir+"Sw"] + d["Tls"+dir+"Device"]
}

// probeAll runs the SupportedFor probes a test's Enable calls would run,
// so that their sockets fall before the test's tls_stat window.
func probeAll(t *testing.T, vc versionCipher) {
	t.Helper()
	for _, d := range []Direction{TX, RX, Both} {
		if err := SupportedFor(vc.version, vc.cipher, d); err != nil {
			t.Fatalf("SupportedFor(%v, %v): %v", vc, d, err)
		}
	}
}

// relayEnd is one outer end of a relay test: what writes into the relay
// or reads out of it.
type relayEnd struct {
	w      io.Writer
	closeW func() error
	r      io.Reader
}

// relayLegs builds client -> relay -> server for a Go-negotiable combo:
// the relay's kTLS RX conn on the leg data comes in and TX conn on the
// leg it goes out, and the outer sender and receiver (user-space
// crypto/tls). download sends from the server to the client; then the
// relay's incoming leg switches right after its handshake (no
// ping-pong), so a TLS 1.3 server's ticket reaches the relay's kernel.
func relayLegs(t *testing.T, vc versionCipher, download bool) (in, out *Conn, snd, rcv relayEnd) {
	t.Helper()
	if !download {
		aCl, aSv := handshakePair(t, vc.version, vc.cipher, true)
		bCl, bSv := handshakePair(t, vc.version, vc.cipher, true)
		deadline(aCl, aSv, bCl, bSv)
		in, out = enable(t, aSv, RX), enable(t, bCl, TX)
		return in, out, relayEnd{w: aCl.tc, closeW: aCl.tc.CloseWrite}, relayEnd{r: bSv.tc}
	}
	bCl, bSv := handshakePair(t, vc.version, vc.cipher, false)
	aCl, aSv := handshakePair(t, vc.version, vc.cipher, true)
	deadline(aCl, aSv, bCl, bSv)
	in, out = enable(t, bCl, RX), enable(t, aSv, TX)
	return in, out, relayEnd{w: bSv.tc, closeW: bSv.tc.CloseWrite}, relayEnd{r: aCl.tc}
}

// softRelayLegs is relayLegs with software peers and crypto_info set
// directly, for TLS 1.3 AES-256-GCM, which Go endpoints never negotiate.
func softRelayLegs(t *testing.T, vc versionCipher) (in, out *Conn, snd, rcv relayEnd) {
	t.Helper()
	aInfo, bInfo := synthInfo(t, vc, 2), synthInfo(t, vc, 4)
	a1, a2 := tcpPair(t)
	b1, b2 := tcpPair(t)
	in = kernelConn(t, a2, vc, nil, aInfo, false)
	out = kernelConn(t, b1, vc, bInfo, nil, true)
	sa, sb := newSoftConn(t, a1, aInfo, nil), newSoftConn(t, b2, nil, bInfo)
	return in, out, relayEnd{w: sa, closeW: sa.closeWrite}, relayEnd{r: sb}
}

// runRelay splices in to out while snd sends data, then half-closes out
// (close_notify) so that rcv sees the end; it checks the bytes.
func runRelay(t *testing.T, in, out *Conn, snd, rcv relayEnd, data []byte) {
	t.Helper()
	type res struct {
		n   int64
		err error
	}
	done := make(chan res, 1)
	go func() {
		n, err := Splice(out, in, 0)
		if err == nil {
			err = out.CloseWrite()
		}
		done <- res{n, err}
	}()
	sum, n, err := transfer(snd.w, snd.closeW, rcv.r, data, 16<<10)
	checkTransfer(t, "through the splice relay", data, sum, n, err)
	r := <-done
	if r.err != nil || r.n != int64(len(data)) {
		t.Fatalf("Splice moved %d of %d bytes: %v", r.n, len(data), r.err)
	}
	if !in.closeNotify {
		t.Error("Splice ended without the source's close_notify")
	}
	if out.spliced != int64(len(data)) {
		t.Errorf("%d of %d bytes went through the pipe: the rest crossed user space", out.spliced, len(data))
	}
}

// TestVMSpliceRelay: a relay with kTLS RX on the leg data arrives on and
// kTLS TX on the leg it leaves on moves every byte with splice(2), for
// every version x cipher (TLS 1.3 AES-256-GCM with software peers), both
// ways; tls_stat shows one kernel context per leg and no decrypt error.
// Downloads through TLS 1.3 carry the server's NewSessionTicket into the
// relay's kernel, which splice(2) refuses (EINVAL): Splice reads it as a
// control record and carries on.
func TestVMSpliceRelay(t *testing.T) {
	requireKTLS(t)
	combos := append(append([]versionCipher(nil), allCombos...), versionCipher{tls.VersionTLS13, CipherAES256GCM})
	for _, vc := range combos {
		for _, download := range []bool{false, true} {
			soft := vc.version == tls.VersionTLS13 && vc.cipher == CipherAES256GCM
			if soft && download {
				continue // the software legs are symmetric
			}
			t.Run(fmt.Sprintf("%v/download=%v", vc, download), func(t *testing.T) {
				probeAll(t, vc)
				before := tlsStat(t)
				var in, out *Conn
				var snd, rcv relayEnd
				if soft {
					in, out, snd, rcv = softRelayLegs(t, vc)
				} else {
					in, out, snd, rcv = relayLegs(t, vc, download)
				}
				runRelay(t, in, out, snd, rcv, testStream(uint64(len(t.Name())), 768<<10))
				d := StatDelta(before, tlsStat(t))
				if swDelta(d, "Rx") != 1 || swDelta(d, "Tx") != 1 || d["TlsDecryptError"] != 0 {
					t.Errorf("tls_stat: Rx +%d Tx +%d DecryptError +%d, want one context per leg and no error", swDelta(d, "Rx"), swDelta(d, "Tx"), d["TlsDecryptError"])
				}
				wantTickets := 0
				if download && vc.version == tls.VersionTLS13 {
					wantTickets = 1
				}
				if in.TicketsSkipped() != wantTickets {
					t.Errorf("tickets skipped %d, want %d", in.TicketsSkipped(), wantTickets)
				}
				t.Logf("tls_stat delta: TlsRxSw +%d TlsTxSw +%d", d["TlsRxSw"], d["TlsTxSw"])
			})
		}
	}
}

// TestVMSpliceEnds: max stops a Splice at exactly that many bytes and a
// second one carries on; an alert from the source fails it after the
// data before it; a read deadline on the source ends a Splice that waits.
func TestVMSpliceEnds(t *testing.T) {
	requireKTLS(t)
	vc := versionCipher{tls.VersionTLS13, CipherAES128GCM}
	t.Run("max", func(t *testing.T) {
		in, out, snd, rcv := softRelayLegs(t, vc)
		data := testStream(41, 100000)
		if _, err := snd.w.Write(data); err != nil {
			t.Fatal(err)
		}
		if n, err := Splice(out, in, 40000); n != 40000 || err != nil {
			t.Fatalf("Splice(max 40000) = %d, %v", n, err)
		}
		if err := snd.closeW(); err != nil {
			t.Fatal(err)
		}
		if n, err := Splice(out, in, 0); n != 60000 || err != nil {
			t.Fatalf("second Splice = %d, %v", n, err)
		}
		if !in.CloseNotified() {
			t.Error("close_notify not reported by CloseNotified")
		}
		out.CloseWrite()
		got, err := io.ReadAll(rcv.r)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("received %d bytes, %v", len(got), err)
		}
	})
	t.Run("fin", func(t *testing.T) {
		// A TCP FIN without close_notify ends the copy like close_notify
		// does (nil error), and CloseNotified tells the two apart.
		in, out, snd, _ := softRelayLegs(t, vc)
		snd.w.Write([]byte("abc"))
		snd.w.(*softConn).c.(*net.TCPConn).CloseWrite()
		n, err := Splice(out, in, 0)
		if n != 3 || err != nil {
			t.Fatalf("Splice = %d, %v; want 3 bytes, then the end", n, err)
		}
		if in.CloseNotified() {
			t.Error("a bare FIN reported as close_notify")
		}
	})
	t.Run("alert", func(t *testing.T) {
		in, out, snd, _ := softRelayLegs(t, vc)
		snd.w.Write([]byte("abc"))
		snd.w.(*softConn).writeRecord(recordAlert, []byte{2, 40})
		n, err := Splice(out, in, 0)
		if n != 3 || err == nil || !strings.Contains(err.Error(), "handshake failure") {
			t.Fatalf("Splice = %d, %v; want 3 bytes then the alert", n, err)
		}
		if _, err := in.Read(make([]byte, 1)); err == nil {
			t.Error("the source reads on after the alert")
		}
	})
	t.Run("deadline", func(t *testing.T) {
		in, out, _, _ := softRelayLegs(t, vc)
		in.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		n, err := Splice(out, in, 0)
		if n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("Splice = %d, %v; want the deadline", n, err)
		}
	})
}

// TestVMDrainedPlaintext: bytes crypto/tls decrypted but the caller did
// not read before Enable come first from the kTLS Conn, by Read and by
// Splice, in order with what the kernel decrypts after them.
func TestVMDrainedPlaintext(t *testing.T) {
	requireKTLS(t)
	for _, vc := range []versionCipher{{tls.VersionTLS12, CipherAES256GCM}, {tls.VersionTLS13, CipherChaCha20Poly1305}} {
		for _, via := range []string{"read", "splice"} {
			t.Run(fmt.Sprintf("%v/%s", vc, via), func(t *testing.T) {
				aCl, aSv := handshakePair(t, vc.version, vc.cipher, true)
				deadline(aCl, aSv)
				first, second := testStream(51, 1000), testStream(52, 5000)
				aCl.tc.Write(first)
				aCl.tc.Write(second)
				one := make([]byte, 1)
				if _, err := io.ReadFull(aSv.tc, one); err != nil {
					t.Fatal(err)
				}
				kc := enable(t, aSv, RX)
				if kc.State().Drained != len(first)-1 {
					t.Errorf("State.Drained = %d, want %d", kc.State().Drained, len(first)-1)
				}
				aCl.tc.CloseWrite()
				var got []byte
				var err error
				if via == "read" {
					got, err = io.ReadAll(kc)
				} else {
					bCl, bSv := handshakePair(t, vc.version, vc.cipher, true)
					deadline(bCl, bSv)
					out := enable(t, bCl, TX)
					var n int64
					if n, err = Splice(out, kc, 0); err == nil && n != int64(len(first)+len(second)-1) {
						err = fmt.Errorf("moved %d bytes", n)
					}
					out.CloseWrite()
					if err == nil {
						got, err = io.ReadAll(bSv.tc)
					}
				}
				want := append(append([]byte(nil), first[1:]...), second...)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("got %d bytes (%v), want %d in order", len(got), err, len(want))
				}
			})
		}
	}
}

// TestVMSupportedFor: the VM kernel has the AES-GCM and ChaCha20-Poly1305
// modules, so every triple probes fine; the answer is cached.
func TestVMSupportedFor(t *testing.T) {
	requireKTLS(t)
	for _, version := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		for _, cipher := range []string{CipherAES128GCM, CipherAES256GCM, CipherChaCha20Poly1305} {
			for _, dir := range []Direction{TX, RX, Both} {
				if err := SupportedFor(version, cipher, dir); err != nil {
					t.Errorf("%s %s %v: %v", tls.VersionName(version), cipher, dir, err)
				}
			}
		}
	}
	before := tlsStat(t)
	if err := SupportedFor(tls.VersionTLS13, CipherAES128GCM, Both); err != nil {
		t.Fatal(err)
	}
	if d := StatDelta(before, tlsStat(t)); swDelta(d, "Tx") != 0 {
		t.Errorf("a second SupportedFor probed again (TlsTxSw +%d)", d["TlsTxSw"])
	}
	if err := SupportedFor(tls.VersionTLS13, "aes128cbc", TX); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a cipher kTLS lacks: %v", err)
	}
}

// TestVMKeyProofRefused: with a wrong secret in the key log, Enable
// refuses in the real kernel path before installing anything (no TLS ULP
// on the socket, no kernel context created), and the connection carries
// on in user space.
func TestVMKeyProofRefused(t *testing.T) {
	requireKTLS(t)
	for _, tc := range []struct {
		vc    versionCipher
		label string
	}{
		{versionCipher{tls.VersionTLS12, CipherAES128GCM}, labelTLS12},
		{versionCipher{tls.VersionTLS13, CipherChaCha20Poly1305}, labelServerTraffic},
	} {
		t.Run(tc.vc.String(), func(t *testing.T) {
			probeAll(t, tc.vc)
			tamper := &tamperLog{label: tc.label}
			cl, sv := handshakePairOpts(t, tc.vc.version, tc.vc.cipher, true, pairOpts{clientLog: func(w io.Writer) io.Writer {
				tamper.w = w
				return tamper
			}})
			deadline(cl, sv)
			before := tlsStat(t)
			kc, err := Enable(cl.tc, cl.rc, Both)
			if kc != nil || err == nil || errors.Is(err, ErrUnsupported) || errors.Is(err, ErrConnBroken) || !strings.Contains(err.Error(), "refusing kernel TLS") {
				t.Fatalf("Enable with a tampered %s = %v, %v", tc.label, kc, err)
			}
			raw, _ := cl.tcp.SyscallConn()
			var ulp string
			var gerr error
			raw.Control(func(fd uintptr) { ulp, gerr = unix.GetsockoptString(int(fd), unix.IPPROTO_TCP, tcpULP) })
			if gerr != nil || ulp != "" {
				t.Errorf("TCP_ULP after the refusal: %q, %v", ulp, gerr)
			}
			if d := StatDelta(before, tlsStat(t)); swDelta(d, "Tx") != 0 || swDelta(d, "Rx") != 0 {
				t.Errorf("tls_stat moved: %v", d)
			}
			sv.rc.Passthrough()
			data := testStream(61, 64<<10)
			sum, n, err := transfer(sv.tc, sv.tc.CloseWrite, cl.tc, data, 16<<10)
			checkTransfer(t, "user space after the refusal", data, sum, n, err)
		})
	}
}
