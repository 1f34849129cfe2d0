package proxy_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/tls"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/tlsbench/tlsbench/proxy"
)

// tunnelSNI opens a tunnel to sni at the origin's port and a TLS
// connection through it that asks for sni.
func (r *running) tunnelSNI(t *testing.T, org origin, sni string) (*tls.Conn, error) {
	t.Helper()
	c, resp := connect(t, r.addr, net.JoinHostPort(sni, strconv.Itoa(org.port)))
	if resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %s", resp.Status)
	}
	tc := tls.Client(c, &tls.Config{RootCAs: r.pool, ServerName: sni})
	return tc, tc.Handshake()
}

// TestMintOnceForConcurrentRequests: 50 clients asking for one host at
// once get one certificate, signed once.
func TestMintOnceForConcurrentRequests(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: true})
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tc, err := p.tunnelSNI(t, org, "localhost")
			if err == nil {
				tc.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the relays to end", func() bool { return p.Counters().Active == 0 })
	c := p.Counters()
	if c.Mints != 1 || c.MintHits+c.MintMisses != 50 || c.ClientHandshakes != 50 {
		t.Errorf("counters %+v: want 1 mint for 50 handshakes", c)
	}
}

// TestMintCacheEvictsLeastRecentlyUsed: with room for two, a third host
// evicts the one used least recently, which is minted again when asked
// for; the one used recently stays.
func TestMintCacheEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	// Every host is the one origin, which is not verified for them.
	toOrigin := func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, org.addr)
	}
	p := startProxy(t, org, proxy.Options{MintCache: true, MintCacheSize: 2, OriginInsecure: true},
		proxy.WithDial(toOrigin), proxy.WithResolve(fixedResolver("127.0.0.1")))
	for i, step := range []struct {
		host        string
		mints, hits int64
	}{
		{"a.test", 1, 0}, {"b.test", 2, 0}, {"a.test", 2, 1}, // a is now the most recent
		{"c.test", 3, 1}, // evicts b
		{"a.test", 3, 2}, // still cached
		{"b.test", 4, 2}, // minted again, evicts c
		{"c.test", 5, 2},
	} {
		tc, err := p.tunnelSNI(t, org, step.host)
		if err != nil {
			t.Fatalf("step %d (%s): %v", i, step.host, err)
		}
		if got := tc.ConnectionState().PeerCertificates[0].DNSNames; len(got) != 1 || got[0] != step.host {
			t.Errorf("step %d: certificate for %v, want %s", i, got, step.host)
		}
		tc.Close()
		if c := p.Counters(); c.Mints != step.mints || c.MintHits != step.hits {
			t.Fatalf("step %d (%s): mints %d, hits %d; want %d, %d", i, step.host, c.Mints, c.MintHits, step.mints, step.hits)
		}
	}
}

// TestMintCacheOff: every connection gets a certificate of its own, and
// all of them carry the proxy's one leaf key.
func TestMintCacheOff(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: false})
	var keys []*ecdsa.PublicKey
	for range 3 {
		tc, err := p.tunnelSNI(t, org, "localhost")
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tc.ConnectionState().PeerCertificates[0].PublicKey.(*ecdsa.PublicKey))
		tc.Close()
	}
	if c := p.Counters(); c.Mints != 3 || c.MintHits != 0 {
		t.Errorf("counters %+v: want 3 mints, no hit", c)
	}
	if !keys[0].Equal(keys[1]) || !keys[0].Equal(keys[2]) {
		t.Error("certificates carry different keys: want the proxy's one leaf key")
	}
}

// TestMintForIPAndRSA: a client without SNI (an IP address) gets a
// certificate with an IP SAN for the CONNECT host; --leaf-key rsa-2048
// gives RSA certificates.
func TestMintForIPAndRSA(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: true, LeafKey: proxy.LeafRSA2048})
	c, resp := connect(t, p.addr, "127.0.0.1:"+strconv.Itoa(org.port))
	if resp.StatusCode != 200 {
		t.Fatal(resp.Status)
	}
	tc := tls.Client(c, &tls.Config{RootCAs: p.pool, ServerName: "127.0.0.1"}) // an IP: no SNI sent
	if err := tc.Handshake(); err != nil {
		t.Fatal(err)
	}
	leaf := tc.ConnectionState().PeerCertificates[0]
	if len(leaf.IPAddresses) != 1 || !leaf.IPAddresses[0].Equal(net.ParseIP("127.0.0.1")) || len(leaf.DNSNames) != 0 {
		t.Errorf("SANs %v %v, want IP 127.0.0.1 only", leaf.DNSNames, leaf.IPAddresses)
	}
	if _, ok := leaf.PublicKey.(*rsa.PublicKey); !ok {
		t.Errorf("leaf key %T, want RSA", leaf.PublicKey)
	}
	tc.Close()
}

// TestCAWrittenOnceAndPrivate: without a CA the proxy writes one, its key
// readable by its owner only, and reuses it on the next start.
func TestCAWrittenOnceAndPrivate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "new")
	p1, err := proxy.New(proxy.Options{PKIDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, proxy.CAKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("CA key mode %v, want 0600", fi.Mode().Perm())
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, want 0700", di.Mode().Perm())
	}
	first, _ := os.ReadFile(p1.CAFile())
	p2, err := proxy.New(proxy.Options{PKIDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(p2.CAFile())
	if p1.CAFile() != filepath.Join(dir, proxy.CACertFile) || string(first) != string(second) {
		t.Error("second start wrote a new CA: clients told to trust the first would fail")
	}
	os.Remove(filepath.Join(dir, proxy.CAKeyFile))
	if _, err := proxy.New(proxy.Options{PKIDir: dir}); err == nil {
		t.Error("a directory with a CA certificate and no key was accepted")
	}
}

// TestGivenCA: minted certificates chain to a CA given as files; a
// certificate that is no CA is refused.
func TestGivenCA(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	// The origin's own PKI has a CA certificate; write it with its key.
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "ca-key.pem")
	writeCAFiles(t, org, cert, key)
	p := startProxy(t, org, proxy.Options{CACert: cert, CAKey: key, MintCache: true})
	p.pool = org.ca.Pool()
	tc := p.tunnel(t, org, nil)
	io.WriteString(tc, "x")
	tc.Close()

	leafCert, leafKey := filepath.Join(dir, "leaf.pem"), filepath.Join(dir, "leaf-key.pem")
	id, _ := org.ca.IssueServer(nil)
	writeIdentity(t, id, leafCert, leafKey)
	if _, err := proxy.New(proxy.Options{CACert: leafCert, CAKey: leafKey}); err == nil {
		t.Error("a leaf certificate was accepted as the proxy's CA")
	}
}

// TestMintCacheOneNameAnySpelling: 200 spellings of one name (letter
// case, a trailing dot on the CONNECT host) get one certificate, minted
// once, for the name in lower case.
func TestMintCacheOneNameAnySpelling(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	toOrigin := func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, org.addr)
	}
	p := startProxy(t, org, proxy.Options{MintCache: true, OriginInsecure: true},
		proxy.WithDial(toOrigin), proxy.WithResolve(fixedResolver("127.0.0.1")))
	const name = "mint.test"
	for i := range 200 {
		// Bit k of i/2 upper-cases the k-th letter, i%2 adds the dot:
		// 200 different spellings.
		spelt, k := []byte(name), 0
		for j := range spelt {
			if spelt[j] == '.' {
				continue
			}
			if (i/2)>>k&1 == 1 {
				spelt[j] -= 'a' - 'A'
			}
			k++
		}
		host := string(spelt)
		if i%2 == 1 {
			host += "."
		}
		c, resp := connect(t, p.addr, net.JoinHostPort(host, strconv.Itoa(org.port)))
		if resp.StatusCode != 200 {
			t.Fatalf("CONNECT %s: %s", host, resp.Status)
		}
		tc := tls.Client(c, &tls.Config{RootCAs: p.pool, ServerName: string(spelt)})
		if err := tc.Handshake(); err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		if got := tc.ConnectionState().PeerCertificates[0].DNSNames; len(got) != 1 || got[0] != name {
			t.Fatalf("%s: certificate for %v, want %s", host, got, name)
		}
		tc.Close()
	}
	if c := p.Counters(); c.Mints != 1 || c.MintHits != 199 {
		t.Errorf("counters %+v: want 1 mint and 199 hits for 200 spellings", c)
	}
}
