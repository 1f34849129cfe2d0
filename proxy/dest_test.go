package proxy_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tlsbench/tlsbench/proxy"
)

// dialSpy is a proxy's dialer that connects nowhere and counts what it
// was asked to connect to.
type dialSpy struct {
	mu    sync.Mutex
	addrs []string
}

func (d *dialSpy) dial(_ context.Context, _, addr string) (net.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.addrs = append(d.addrs, addr)
	return nil, errors.New("test: no connection")
}

func (d *dialSpy) dialled() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.addrs...)
}

// fixedResolver resolves every name to addrs.
func fixedResolver(addrs ...string) func(context.Context, string) ([]netip.Addr, error) {
	return func(context.Context, string) ([]netip.Addr, error) {
		var out []netip.Addr
		for _, a := range addrs {
			out = append(out, netip.MustParseAddr(a))
		}
		return out, nil
	}
}

// TestDestinationRefused: a CONNECT to an address the proxy must not
// reach (the unspecified address, which reaches this machine; link-local,
// where the cloud metadata service answers; multicast; broadcast; a
// network not allowed; a name that resolves to one of those) is answered
// 403 with the reason, counted, logged in one line, and nothing is
// dialled.
func TestDestinationRefused(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	for _, tc := range []struct {
		name, target string
		allow        []string
		resolve      []string // what every name resolves to; nil: the system's resolver
		want         string
	}{
		{"unspecified", "0.0.0.0:443", nil, nil, "0.0.0.0 is the unspecified address, which the proxy never dials"},
		{"unspecified allowed all", "0.0.0.0:443", []string{"0.0.0.0/0", "::/0"}, nil, "0.0.0.0 is the unspecified address"},
		{"unspecified v6", "[::]:443", []string{"::/0"}, nil, ":: is the unspecified address"},
		{"this network", "0.1.2.3:443", nil, nil, "0.1.2.3 is in 0.0.0.0/8 (this network), which the proxy never dials"},
		{"metadata", "169.254.169.254:443", []string{"0.0.0.0/0"}, nil, "169.254.169.254 is link-local, which the proxy never dials"},
		{"metadata mapped", "[::ffff:169.254.169.254]:443", []string{"::/0"}, nil, "169.254.169.254 is link-local"},
		{"link-local v6", "[fe80::1]:443", []string{"::/0"}, nil, "fe80::1 is link-local"},
		{"multicast", "224.0.0.1:443", []string{"0.0.0.0/0"}, nil, "224.0.0.1 is multicast"},
		{"multicast v6", "[ff02::1]:443", []string{"::/0"}, nil, "ff02::1 is multicast"},
		{"broadcast", "255.255.255.255:443", []string{"0.0.0.0/0"}, nil, "255.255.255.255 is the broadcast address"},
		{"private not allowed", "10.0.0.1:443", nil, nil, "10.0.0.1 is not in --allow-dest"},
		{"documentation v4", "192.0.2.1:443", nil, nil, "192.0.2.1 is not in --allow-dest"},
		{"documentation v6", "[2001:db8::1]:443", nil, nil, "2001:db8::1 is not in --allow-dest"},
		{"mapped not allowed", "[::ffff:192.0.2.1]:443", nil, nil, "192.0.2.1 is not in --allow-dest"},
		{"metadata v6", "[fd00:ec2::254]:443", []string{"fc00::/7"}, nil, "fd00:ec2::254 is the cloud metadata service's address, which the proxy never dials"},
		{"metadata behind NAT64", "[64:ff9b::a9fe:a9fe]:443", []string{"::/0"}, nil, "64:ff9b::a9fe:a9fe is link-local (as 169.254.169.254"},
		{"metadata over 6to4", "[2002:a9fe:a9fe::1]:443", []string{"::/0"}, nil, "link-local (as 169.254.169.254"},
		{"metadata IPv4-compatible", "[::a9fe:a9fe]:443", []string{"::/0"}, nil, "link-local (as 169.254.169.254"},
		{"metadata over SIIT", "[::ffff:0:a9fe:a9fe]:443", []string{"::/0"}, nil, "::ffff:0:a9fe:a9fe is link-local (as 169.254.169.254"},
		{"Teredo", "[2001:0:4136:e378:8000:63bf:3fff:fdd2]:443", []string{"::/0"}, nil, "2001:0:4136:e378:8000:63bf:3fff:fdd2 is a Teredo tunnel address, which the proxy never dials"},
		{"name to metadata", "metadata.test:443", nil, []string{"169.254.169.254"}, "metadata.test resolves to 169.254.169.254, which is link-local"},
		{"allowed name to metadata", "metadata.test:443", []string{"METADATA.test."}, []string{"169.254.169.254"}, "metadata.test resolves to 169.254.169.254, which is link-local"},
		{"name to mapped metadata", "m.test:443", nil, []string{"::ffff:169.254.169.254"}, "m.test resolves to 169.254.169.254, which is link-local"},
		{"name to zoned link-local", "z.test:443", []string{"::/0"}, []string{"fe80::1%eth0"}, "z.test resolves to fe80::1%eth0, which is link-local"},
		{"name partly outside", "mixed.test:443", nil, []string{"127.0.0.1", "10.0.0.1"}, "mixed.test resolves to 10.0.0.1, which is not in --allow-dest"},
		{"localhost outside policy", "localhost:443", []string{"10.0.0.0/8"}, nil, "localhost resolves to "},
		{"other name than allowed", "localhost:443", []string{"origin.example"}, nil, "localhost resolves to "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spy := &dialSpy{}
			opts := []proxy.Option{proxy.WithDial(spy.dial)}
			if tc.resolve != nil {
				opts = append(opts, proxy.WithResolve(fixedResolver(tc.resolve...)))
			}
			p := startProxy(t, org, proxy.Options{AllowDest: tc.allow, ConnectPorts: []int{443}}, opts...)
			_, resp := connect(t, p.addr, tc.target)
			reason := resp.Header.Get(proxy.ErrorHeader)
			if resp.StatusCode != 403 || !strings.HasPrefix(reason, "destination not allowed: ") || !strings.Contains(reason, tc.want) {
				t.Errorf("answer %s %q; want 403 %q", resp.Status, reason, tc.want)
			}
			if got := spy.dialled(); len(got) != 0 {
				t.Errorf("dialled %v", got)
			}
			if c := p.Counters(); c.Refused[proxy.RefusedDest] != 1 {
				t.Errorf("counters %+v: want one destination refused", c)
			}
			if log := p.log.String(); strings.Count(log, "request refused") != 1 || !strings.Contains(log, tc.want) {
				t.Errorf("log: want one line saying %q:\n%s", tc.want, log)
			}
		})
	}
}

// TestDestinationRefusedRealDial: with the proxy's own dialer, a refused
// destination on this machine's own listener (0.0.0.0 reaches it) sees
// no connection.
func TestDestinationRefusedRealDial(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp4", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{AllowDest: []string{"0.0.0.0/0"}, ConnectPorts: []int{port}})
	_, resp := connect(t, p.addr, "0.0.0.0:"+strconv.Itoa(port))
	ln.Close()
	<-done
	if resp.StatusCode != 403 || accepted.Load() != 0 {
		t.Errorf("answer %s (%s), %d connections reached the listener; want 403 and none",
			resp.Status, resp.Header.Get(proxy.ErrorHeader), accepted.Load())
	}
}

// TestDestinationAllowed: an origin on loopback is relayed by default; a
// name given in AllowDest (in any case, with a trailing dot) is relayed
// whatever it resolves to, dialled at the address resolved once, not by
// name again.
func TestDestinationAllowed(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	t.Run("loopback by default", func(t *testing.T) {
		t.Parallel()
		p := startProxy(t, org, proxy.Options{MintCache: true})
		tc := p.tunnel(t, org, nil)
		defer tc.Close()
		echo(t, tc, []byte("through the proxy"))
		c, resp := connect(t, p.addr, "[::ffff:127.0.0.1]:"+strconv.Itoa(org.port))
		if resp.StatusCode != 200 {
			t.Fatalf("CONNECT to a mapped loopback address: %s (%s)", resp.Status, resp.Header.Get(proxy.ErrorHeader))
		}
		c.Close()
	})
	t.Run("name", func(t *testing.T) {
		t.Parallel()
		var lookups atomic.Int32
		resolve := func(context.Context, string) ([]netip.Addr, error) {
			// A second answer would rebind the name to the metadata
			// service: it must not be asked for.
			if lookups.Add(1) == 1 {
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}
			return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
		}
		var dialled []string
		var mu sync.Mutex
		dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
			mu.Lock()
			dialled = append(dialled, addr)
			mu.Unlock()
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		}
		p := startProxy(t, org, proxy.Options{MintCache: true, AllowDest: []string{"Origin.Test."}, OriginInsecure: true},
			proxy.WithResolve(resolve), proxy.WithDial(dial))
		c, resp := connect(t, p.addr, "origin.test:"+strconv.Itoa(org.port))
		if resp.StatusCode != 200 {
			t.Fatalf("CONNECT origin.test: %s (%s)", resp.Status, resp.Header.Get(proxy.ErrorHeader))
		}
		tc := tls.Client(c, &tls.Config{RootCAs: p.pool, ServerName: "origin.test"})
		defer tc.Close()
		echo(t, tc, []byte("by name"))
		mu.Lock()
		defer mu.Unlock()
		if want := "127.0.0.1:" + strconv.Itoa(org.port); len(dialled) != 1 || dialled[0] != want || lookups.Load() != 1 {
			t.Errorf("dialled %v after %d lookups; want [%s] after one", dialled, lookups.Load(), want)
		}
	})
}

// TestAllowDestValidate: what AllowDest cannot hold is a field error
// naming it.
func TestAllowDestValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		allow []string
		want  string
	}{
		{[]string{"10.0.0.0/33"}, "not a network in CIDR form"},
		{[]string{"exa mple.com"}, "not a network in CIDR form"},
		{[]string{""}, "not a network in CIDR form"},
		{[]string{"169.254.0.0/16"}, "is link-local, which the proxy never dials"},
		{[]string{"169.254.169.254"}, "is link-local"},
		{[]string{"::ffff:169.254.169.254"}, "is link-local"},
		{[]string{"224.0.0.0/8"}, "is multicast"},
		{[]string{"0.0.0.0"}, "is the unspecified address"},
		{[]string{"::"}, "is the unspecified address"},
		{[]string{"2002:a9fe:a9fe::/48"}, "is link-local (as 169.254.169.254/32, which it reaches), which the proxy never dials"},
		{[]string{"2002:a9fe::/32"}, "is link-local (as 169.254.0.0/16"},
		{[]string{"2002:e000::/20"}, "is multicast (as 224.0.0.0/4"},
		{[]string{"64:ff9b::a9fe:a9fe"}, "is link-local (as 169.254.169.254/32"},
		{[]string{"::ffff:0:a9fe:0/112"}, "is link-local (as 169.254.0.0/16"},
		{[]string{"::a9fe:a9fe"}, "is link-local (as 169.254.169.254/32"},
		{[]string{"2001::/32"}, "is a Teredo tunnel address, which the proxy never dials"},
		{[]string{"2001:0:4136::/48"}, "is a Teredo tunnel address"},
	} {
		err := proxy.Options{AllowDest: tc.allow}.Validate()
		if err == nil || !strings.Contains(err.Error(), "AllowDest") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AllowDest %q: %v; want an AllowDest error saying %q", tc.allow, err, tc.want)
		}
	}
	for _, ok := range [][]string{{"0.0.0.0/0", "::/0"}, {"10.0.0.0/8", "origin.example", "192.0.2.7", "2001:db8::/32"},
		// Wider than what is never dialled, or carrying what may be: the
		// addresses are judged one by one when asked for.
		{"2002::/16", "64:ff9b::/96", "2002:a00::/24", "::ffff:0:0/96", "::/96", "::1", "2000::/3"}} {
		if err := (proxy.Options{AllowDest: ok}).Validate(); err != nil {
			t.Errorf("AllowDest %q: %v", ok, err)
		}
	}
}

// TestNeverDialZoned: an address with a zone (fe80::1%eth0) is judged
// as the address without it, by the policy and by the dialer's last
// check: a zone does not make link-local or multicast dialable.
func TestNeverDialZoned(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ addr, want string }{
		{"fe80::1%eth0", "link-local"},
		{"ff02::1%lo", "multicast"},
		{"::ffff:169.254.169.254%eth0", "link-local"},
		{"64:ff9b::a9fe:a9fe%eth0", "link-local (as 169.254.169.254"},
		{"::1%lo", ""},
	} {
		a := netip.MustParseAddr(tc.addr)
		if got := proxy.NeverReason(a); !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("%s: never dialled as %q; want %q", tc.addr, got, tc.want)
		}
		err := proxy.RefuseNever("tcp6", netip.AddrPortFrom(a, 443).String(), nil)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: the dialer's check says %v; want %q", tc.addr, err, tc.want)
		}
	}
}
