package tlsconf_test

import (
	"context"
	"crypto/tls"
	"net"
	"testing"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// session makes a real ClientSessionState by completing a TLS 1.2
// handshake against a throwaway server.
func sessions(t *testing.T, n int) []*tls.ClientSessionState {
	t.Helper()
	scfg, ca := testpki.Server(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { tls.Server(c, scfg).Handshake(); c.Close() }()
		}
	}()
	rec := &recorder{}
	var out []*tls.ClientSessionState
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		tc := tls.Client(c, &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", MaxVersion: tls.VersionTLS12, ClientSessionCache: rec})
		if err := tc.HandshakeContext(context.Background()); err != nil {
			t.Fatal(err)
		}
		c.Close()
		out = append(out, rec.last)
	}
	return out
}

type recorder struct{ last *tls.ClientSessionState }

func (r *recorder) Get(string) (*tls.ClientSessionState, bool) { return nil, false }
func (r *recorder) Put(_ string, cs *tls.ClientSessionState)   { r.last = cs }

func TestSessionPoolScopes(t *testing.T) {
	t.Parallel()
	ss := sessions(t, 2)
	pool := tlsconf.NewSessionPool(4, tlsconf.ReuseMulti)
	a, b := pool.Scoped("identity-a"), pool.Scoped("identity-b")
	a.Put("localhost", ss[0])
	if got, ok := b.Get("localhost"); ok || got != nil {
		t.Fatal("a session stored under identity A was offered to identity B")
	}
	if got, ok := a.Get("localhost"); !ok || got != ss[0] {
		t.Fatal("identity A did not get its own session back")
	}
	if _, ok := a.Get("other-server"); ok {
		t.Fatal("a session for one server was offered to another")
	}
}

func TestSessionPoolReuse(t *testing.T) {
	t.Parallel()
	ss := sessions(t, 3)
	tests := []struct {
		reuse tlsconf.TicketReuse
		size  int
		gets  int
		want  int // successful gets
	}{
		{tlsconf.ReuseMulti, 2, 5, 5},  // reusable: never runs dry
		{tlsconf.ReuseSingle, 2, 5, 2}, // single use: only what is pooled, capped at size
		{tlsconf.ReuseSingle, 8, 5, 3},
	}
	for _, tt := range tests {
		pool := tlsconf.NewSessionPool(tt.size, tt.reuse)
		c := pool.Scoped("")
		for _, s := range ss {
			c.Put("k", s)
		}
		if got, want := pool.Len("", "k"), min(tt.size, len(ss)); got != want {
			t.Errorf("%v size %d: pool holds %d, want %d", tt.reuse, tt.size, got, want)
		}
		got := 0
		seen := map[*tls.ClientSessionState]int{}
		for i := 0; i < tt.gets; i++ {
			if s, ok := c.Get("k"); ok {
				got++
				seen[s]++
			}
		}
		if got != tt.want {
			t.Errorf("%v size %d: %d gets succeeded, want %d", tt.reuse, tt.size, got, tt.want)
		}
		if tt.reuse == tlsconf.ReuseSingle {
			for s, n := range seen {
				if n > 1 {
					t.Errorf("single-use pool offered a session %d times (%p)", n, s)
				}
			}
		} else if len(seen) != min(tt.size, len(ss)) {
			t.Errorf("multi-use pool used %d distinct sessions, want round-robin over %d", len(seen), min(tt.size, len(ss)))
		}
	}
}

func TestSessionPoolKeepsSessionsOnInvalidate(t *testing.T) {
	t.Parallel()
	ss := sessions(t, 2)
	pool := tlsconf.NewSessionPool(4, tlsconf.ReuseSingle)
	c := pool.Scoped("")
	c.Put("k", ss[0])
	c.Put("k", ss[1])
	// One failed handshake must not empty the scope: the other
	// concurrent handshakes of a wave still need their sessions.
	c.Put("k", nil)
	if n := pool.Len("", "k"); n != 2 {
		t.Fatalf("pool holds %d sessions after an invalidation, want 2", n)
	}
}

func TestParseNames(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"1.2", "tls1.3", " 1.3 "} {
		if _, err := tlsconf.ParseVersion(s); err != nil {
			t.Errorf("ParseVersion(%q): %v", s, err)
		}
	}
	if _, err := tlsconf.ParseVersion("1.1"); err == nil {
		t.Error("ParseVersion(1.1) should fail")
	}
	for name, want := range map[string]tls.CurveID{"x25519": tls.X25519, "X25519MLKEM768": tls.X25519MLKEM768, "prime256v1": tls.CurveP256, "p384": tls.CurveP384} {
		got, err := tlsconf.ParseGroup(name)
		if err != nil || got != want {
			t.Errorf("ParseGroup(%q) = %v, %v; want %v", name, got, err, want)
		}
		if back, _ := tlsconf.ParseGroup(tlsconf.GroupName(got)); back != got {
			t.Errorf("GroupName(%v) = %q does not parse back", got, tlsconf.GroupName(got))
		}
	}
	if _, err := tlsconf.ParseGroup("x448"); err == nil {
		t.Error("ParseGroup(x448) should fail")
	}
	if tlsconf.GroupName(0) != "none" {
		t.Errorf("GroupName(0) = %q, want none", tlsconf.GroupName(0))
	}
}
