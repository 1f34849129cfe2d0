//go:build linux

package proxy_test

import (
	"bytes"
	"crypto/tls"
	"io"
	"maps"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/proxy"
	"github.com/tlsbench/tlsbench/server"
)

// vmEnv makes the TestVM* tests mandatory: scripts/ktls-vm-test.sh sets
// it inside a VM whose kernel has kernel TLS. Elsewhere they skip.
const vmEnv = "TLSBENCH_KTLS_VM"

// The TestVM* tests count the kernel's TLS contexts (/proc/net/tls_stat),
// which any other test's kernel TLS would move: none of them is parallel,
// and Go runs the parallel tests of the package only after them.

func requireVM(t *testing.T) {
	t.Helper()
	if os.Getenv(vmEnv) != "1" {
		t.Skipf("VM-only test: needs a kernel with CONFIG_TLS; run scripts/ktls-vm-test.sh (sets %s=1)", vmEnv)
	}
	if err := ktls.Supported(); err != nil {
		t.Fatalf("%s=1 but kTLS is unavailable: %v", vmEnv, err)
	}
}

// vmCombo is the version and cipher the client asks the proxy for; the
// origin is limited to the same version (and, for TLS 1.2, cipher).
type vmCombo struct {
	version uint16
	cipher  string
}

func (c vmCombo) String() string { return tls.VersionName(c.version) + "/" + c.cipher }

// tls12Suites are the TLS 1.2 suites of each cipher, for ECDSA and RSA
// keys (the proxy's leaf key and the origin's may differ).
var tls12Suites = map[string][]uint16{
	ktls.CipherAES128GCM:        {tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256},
	ktls.CipherAES256GCM:        {tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384},
	ktls.CipherChaCha20Poly1305: {tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256},
}

// clientConfig is the client's configuration for c. TLS 1.3 is steered
// to the cipher by the first TLS 1.2 suite the client offers, so it
// offers TLS 1.2 too: the test checks what was negotiated.
func (c vmCombo) clientConfig(t *testing.T) *tls.Config {
	t.Helper()
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, MaxVersion: c.version}
	if c.version == tls.VersionTLS12 {
		cfg.CipherSuites = tls12Suites[c.cipher]
	} else if err := ktls.PreferTLS13Cipher(cfg, c.cipher); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// vmOrigin is the built-in echo server limited to c's version (and TLS
// 1.2 cipher), so that the proxy's origin leg negotiates it too.
func vmOrigin(t *testing.T, c vmCombo) origin {
	t.Helper()
	cfg, ca := testpki.Server(t)
	cfg.MaxVersion = c.version
	if c.version == tls.VersionTLS12 {
		cfg.CipherSuites = tls12Suites[c.cipher]
	}
	return serveOrigin(t, server.New(cfg), ca)
}

// probeKTLS runs, before a tls_stat window, the support probes the
// proxy's Enable calls make once per process (each creates a kernel
// context on a test socket), for the versions and ciphers of both legs.
func probeKTLS(t *testing.T, combos ...vmCombo) {
	t.Helper()
	for _, c := range combos {
		if err := ktls.SupportedFor(c.version, c.cipher, ktls.Both); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
	}
}

func tlsStat(t *testing.T) map[string]int64 {
	t.Helper()
	s, err := ktls.ReadTLSStat()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// contexts is how many kernel TLS contexts of a direction ("Tx", "Rx")
// were created, software or device, and the decrypt errors, between two
// tls_stat readings.
func contexts(before, after map[string]int64) (tx, rx, decryptErrors int64) {
	d := ktls.StatDelta(before, after)
	return d["TlsTxSw"] + d["TlsTxDevice"], d["TlsRxSw"] + d["TlsRxDevice"], d["TlsDecryptError"]
}

// echoStream writes want through tc in odd-sized pieces while it reads
// the echo, ends its half with close_notify, and checks what came back.
func echoStream(t *testing.T, tc *tls.Conn, want []byte) {
	t.Helper()
	tc.SetDeadline(time.Now().Add(3 * time.Minute))
	werr := make(chan error, 1)
	go func() {
		var err error
		for rest := want; len(rest) > 0 && err == nil; {
			n := min(len(rest), 7001+len(rest)%50000)
			_, err = tc.Write(rest[:n])
			rest = rest[n:]
		}
		if err == nil {
			err = tc.CloseWrite()
		}
		werr <- err
	}()
	got, err := io.ReadAll(tc)
	if err != nil {
		t.Fatalf("read after %d bytes: %v", len(got), err)
	}
	if err := <-werr; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes back, want %d, equal prefix %d", len(got), len(want), commonPrefix(got, want))
	}
}

// TestVMProxySplice: with kernel TLS on, the proxy hands both legs to the
// kernel right after their handshakes and relays each direction with
// splice(2): a large stream through the echo origin and back arrives
// byte for byte, no payload byte crosses the proxy (UserSpaceBytes 0:
// nothing was left in crypto/tls to drain), and the kernel created
// exactly the proxy's contexts, a TX and an RX per leg, with no decrypt
// error. The client's close_notify, sent while the echo is still coming
// back, ends one direction and the origin's ends the other.
func TestVMProxySplice(t *testing.T) {
	requireVM(t)
	combos := []vmCombo{
		{tls.VersionTLS13, ktls.CipherAES128GCM},
		{tls.VersionTLS13, ktls.CipherChaCha20Poly1305},
		{tls.VersionTLS12, ktls.CipherAES256GCM},
		{tls.VersionTLS12, ktls.CipherChaCha20Poly1305},
	}
	for i, c := range combos {
		t.Run(c.String(), func(t *testing.T) {
			org := vmOrigin(t, c)
			p := startProxy(t, org, proxy.Options{KTLS: proxy.KTLSOn, Buffer: 16 << 10, MintCache: true})
			// The origin leg of TLS 1.3 negotiates what the proxy's Go
			// client prefers: AES-128-GCM on a CPU with AES instructions.
			probeKTLS(t, c, vmCombo{tls.VersionTLS13, ktls.CipherAES128GCM}, vmCombo{tls.VersionTLS13, ktls.CipherChaCha20Poly1305})
			before := tlsStat(t)
			tc := p.tunnel(t, org, c.clientConfig(t))
			if got := tc.ConnectionState(); got.Version != c.version || ktls.CipherOf(got.CipherSuite) != c.cipher {
				t.Fatalf("client leg negotiated %s %s, want %v", tls.VersionName(got.Version), ktls.CipherOf(got.CipherSuite), c)
			}
			want := pattern(3<<20+4567, uint64(i))
			echoStream(t, tc, want)
			waitFor(t, "the relay to end", func() bool { return p.Counters().Active == 0 })
			tx, rx, derr := contexts(before, tlsStat(t))
			cn := p.Counters()
			t.Logf("KTLS-PROXY proxy %-28s %d bytes each way, relay %v, user-space bytes %d, tls_stat TX +%d RX +%d, decrypt errors +%d",
				c, len(want), cn.Relay, cn.UserSpaceBytes, tx, rx, derr)
			if cn.Relay["client:splice"] != 1 || cn.Relay["origin:splice"] != 1 || len(cn.Relay) != 2 {
				t.Errorf("relay modes %v, want client:splice and origin:splice", cn.Relay)
			}
			if cn.UserSpaceBytes != 0 || cn.BytesToOrigin != int64(len(want)) || cn.BytesToClient != int64(len(want)) {
				t.Errorf("user-space bytes %d, to origin %d, to client %d: want 0, %d, %d", cn.UserSpaceBytes, cn.BytesToOrigin, cn.BytesToClient, len(want), len(want))
			}
			if len(cn.Failures) != 0 {
				t.Errorf("failures %v", cn.Failures)
			}
			if tx != 2 || rx != 2 || derr != 0 {
				t.Errorf("tls_stat: TX +%d RX +%d decrypt errors +%d, want +2 +2 (one of each per leg) and none", tx, rx, derr)
			}
		})
	}
}

// flipConn corrupts the byte at offset at of what it reads: the client's
// crypto/tls then fails to authenticate a record from the proxy and
// answers with a bad_record_mac alert, in the middle of the stream.
type flipConn struct {
	net.Conn
	at, read int
}

func (c *flipConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if c.read <= c.at && c.at < c.read+n {
		p[c.at-c.read] ^= 0x55
	}
	c.read += n
	return n, err
}

// TestVMProxySpliceEnds: how a spliced relay ends. A client that sends
// close_notify before reading anything still gets the whole echo, and
// the relay ends without a failure; a client that sends a fatal alert in
// the middle of the stream ends the relay at once, counted once as a
// relay failure, with both legs closed (goleak in TestMain checks that no
// goroutine outlives the tests).
func TestVMProxySpliceEnds(t *testing.T) {
	requireVM(t)
	c := vmCombo{tls.VersionTLS13, ktls.CipherAES128GCM}
	org := vmOrigin(t, c)
	probeKTLS(t, c)
	t.Run("close_notify", func(t *testing.T) {
		p := startProxy(t, org, proxy.Options{KTLS: proxy.KTLSOn, MintCache: true})
		tc := p.tunnel(t, org, c.clientConfig(t))
		tc.SetDeadline(time.Now().Add(2 * time.Minute))
		want := pattern(200000, 7)
		if _, err := tc.Write(want); err != nil {
			t.Fatal(err)
		}
		if err := tc.CloseWrite(); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(tc)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("got %d of %d bytes after close_notify: %v", len(got), len(want), err)
		}
		waitFor(t, "the relay to end", func() bool { return p.Counters().Active == 0 })
		if cn := p.Counters(); len(cn.Failures) != 0 || cn.Relay["client:splice"] != 1 || cn.UserSpaceBytes != 0 {
			t.Errorf("counters %+v: want a clean spliced relay", cn)
		}
	})
	t.Run("alert", func(t *testing.T) {
		p := startProxy(t, org, proxy.Options{KTLS: proxy.KTLSOn, MintCache: true})
		raw, resp := connect(t, p.addr, "localhost:"+strconv.Itoa(org.port))
		if resp.StatusCode != 200 {
			t.Fatalf("CONNECT: %s", resp.Status)
		}
		cfg := c.clientConfig(t)
		cfg.RootCAs, cfg.ServerName = p.pool, "localhost"
		// Past the handshake, inside the echoed stream.
		tc := tls.Client(&flipConn{Conn: raw, at: 100000}, cfg)
		tc.SetDeadline(time.Now().Add(2 * time.Minute))
		if err := tc.Handshake(); err != nil {
			t.Fatal(err)
		}
		data := pattern(400000, 8)
		go tc.Write(data) // fails once the relay is cut: what matters is the read
		_, err := io.ReadAll(tc)
		if err == nil || !strings.Contains(err.Error(), "bad record MAC") {
			t.Fatalf("client read: %v; want the corrupted record refused", err)
		}
		waitFor(t, "the relay to end", func() bool { return p.Counters().Active == 0 })
		cn := p.Counters()
		relayFailures := int64(0)
		for k, n := range cn.Failures {
			if strings.HasPrefix(k, "relay:") {
				relayFailures += n
			}
		}
		t.Logf("KTLS-PROXY proxy alert mid-stream: failures %v, relay %v, %d bytes to the client before it", cn.Failures, cn.Relay, cn.BytesToClient)
		if relayFailures != 1 || len(cn.Failures) != 1 || cn.Relay["client:splice"] != 1 || cn.UserSpaceBytes != 0 {
			t.Errorf("counters %+v: want one relay failure of a spliced relay", cn)
		}
		if !strings.Contains(p.log.String(), "bad record MAC") {
			t.Errorf("the proxy's log does not name the client's alert:\n%s", p.log)
		}
	})
}

// TestVMProxyLegFallback: a TLS 1.2 session resumed on the client leg
// cannot go to the kernel (crypto/tls exports no keys for it): with kTLS
// auto the proxy relays that leg in user space and says why in its log
// and its counters (Fallbacks),
// the origin leg (TLS 1.3, resumed too) stays in the kernel (read/write,
// no splice), and every byte arrives; when the origin leg is a resumed
// TLS 1.2 session as well, both legs fall back. With kTLS on the proxy
// gives TLS 1.2-only clients no ticket, so that there is no such session.
func TestVMProxyLegFallback(t *testing.T) {
	requireVM(t)
	c := vmCombo{tls.VersionTLS12, ktls.CipherAES128GCM}
	org := vmOrigin(t, vmCombo{tls.VersionTLS13, ktls.CipherAES128GCM})
	org12 := vmOrigin(t, c)
	probeKTLS(t, c, vmCombo{tls.VersionTLS13, ktls.CipherAES128GCM})
	// resumed opens a first connection (full handshake, spliced) and
	// returns a second one that resumes its session.
	resumed := func(t *testing.T, p *running, org origin) *tls.Conn {
		cfg := c.clientConfig(t)
		cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
		first := p.tunnel(t, org, cfg.Clone())
		echoStream(t, first, pattern(50000, 9))
		if first.ConnectionState().DidResume {
			t.Fatal("the first connection resumed")
		}
		waitFor(t, "the first relay to end", func() bool { return p.Counters().Active == 0 })
		second := p.tunnel(t, org, cfg.Clone())
		if !second.ConnectionState().DidResume {
			t.Fatal("the second connection did not resume")
		}
		return second
	}
	for _, tt := range []struct {
		name       string
		org        origin
		originMode string
	}{
		{"auto", org, "origin:ktls"},
		{"auto/origin-tls12", org12, "origin:user"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := startProxy(t, tt.org, proxy.Options{KTLS: proxy.KTLSAuto, MintCache: true, OriginSessions: true})
			tc := resumed(t, p, tt.org)
			base := p.Counters()
			want := pattern(1<<20+99, 10)
			echoStream(t, tc, want)
			waitFor(t, "the relay to end", func() bool { return p.Counters().Active == 0 })
			cn := p.Counters().Sub(base)
			all := p.Counters()
			t.Logf("KTLS-PROXY proxy TLS 1.2 resumed client leg, %s: relay %v (first connection and resumed one), user-space bytes %d of 2x%d",
				tt.name, all.Relay, cn.UserSpaceBytes, len(want))
			if all.Relay["client:splice"] != 1 || all.Relay["origin:splice"] != 1 || all.Relay["client:user"] != 1 || all.Relay[tt.originMode] != 1 || len(all.Relay) != 4 {
				t.Errorf("relay modes %v: want the first connection spliced, the second client:user and %s", all.Relay, tt.originMode)
			}
			wantFallbacks := map[string]int64{"client:" + proxy.FallbackTLS12Resumed: 1}
			if tt.originMode == "origin:user" {
				wantFallbacks["origin:"+proxy.FallbackTLS12Resumed] = 1
			}
			if !maps.Equal(all.Fallbacks, wantFallbacks) {
				t.Errorf("fallbacks %v, want %v", all.Fallbacks, wantFallbacks)
			}
			if cn.UserSpaceBytes != 2*int64(len(want)) || len(all.Failures) != 0 {
				t.Errorf("user-space bytes %d (want %d: both directions), failures %v", cn.UserSpaceBytes, 2*len(want), all.Failures)
			}
			if log := p.log.String(); !strings.Contains(log, "client leg relayed in user space") || !strings.Contains(log, "TLS 1.2 resumed session") {
				t.Errorf("the proxy's log does not say why the client leg fell back:\n%s", log)
			}
		})
	}
	t.Run("on", func(t *testing.T) {
		// With kernel TLS required, a client that cannot speak TLS 1.3
		// gets no ticket: its next connection makes a full handshake,
		// which the kernel takes, instead of resuming into a refusal.
		p := startProxy(t, org, proxy.Options{KTLS: proxy.KTLSOn, MintCache: true})
		cfg := c.clientConfig(t)
		cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
		for i := range 2 {
			tc := p.tunnel(t, org, cfg.Clone())
			if tc.ConnectionState().DidResume {
				t.Fatalf("connection %d resumed a TLS 1.2 session the proxy should not have issued", i+1)
			}
			echoStream(t, tc, pattern(50000, 11))
			waitFor(t, "the relay to end", func() bool { return p.Counters().Active == 0 })
		}
		cn := p.Counters()
		if cn.Relay["client:splice"] != 2 || cn.Relay["origin:splice"] != 2 || len(cn.Failures) != 0 || len(cn.Fallbacks) != 0 {
			t.Errorf("relay %v failures %v fallbacks %v: want both connections spliced", cn.Relay, cn.Failures, cn.Fallbacks)
		}
	})
}
