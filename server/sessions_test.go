package server

import (
	"context"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
)

// fixture is a PKI on disk with two client identities, for servers built
// from Options.
type fixture struct {
	dir     string
	ca      *pki.CA
	server  IdentityFiles
	caFile  string
	clients []*pki.Identity
}

func newFixture(t *testing.T, clientOpts ...pki.Option) *fixture {
	t.Helper()
	ca, _, files := testpki.ServerFiles(t)
	f := &fixture{dir: filepath.Dir(files.CA), ca: ca, caFile: files.CA}
	f.server = IdentityFiles{Cert: files.Cert, Key: files.Key}
	for _, name := range []string{"A", "B"} {
		id, err := ca.IssueClient("client "+name, clientOpts...)
		must(t, err)
		f.clients = append(f.clients, id)
	}
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// start serves o on a loopback port until the test ends.
func start(t *testing.T, o Options) (*Server, string) {
	t.Helper()
	srv, err := NewFromOptions(o)
	must(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return srv, ln.Addr().String()
}

// client is one client identity with its own session cache.
type client struct {
	cfg *tls.Config
}

func (f *fixture) client(i int, version uint16) *client {
	cfg := &tls.Config{RootCAs: f.ca.Pool(), ServerName: "localhost", MinVersion: version, MaxVersion: version,
		ClientSessionCache: tls.NewLRUClientSessionCache(4)}
	if i >= 0 {
		cert := f.clients[i].TLSCertificate()
		cfg.Certificates = []tls.Certificate{cert}
	}
	return &client{cfg: cfg}
}

// connect handshakes, pings (to read TLS 1.3 tickets) and reports whether
// the session was resumed.
func (c *client) connect(addr string) (resumed bool, err error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	tc := tls.Client(conn, c.cfg)
	if err := tc.Handshake(); err != nil {
		return false, err
	}
	if _, err := tc.Write([]byte{'p'}); err != nil {
		return false, err
	}
	if _, err := io.ReadFull(tc, make([]byte, 1)); err != nil {
		return false, err
	}
	return tc.ConnectionState().DidResume, nil
}

func thumbHex(id *pki.Identity) string {
	sum := id.Thumbprint()
	return hex.EncodeToString(sum[:])
}

// Not parallel: it sets the package variable reloadInterval.
func TestRevokedClientCannotResumeOrConnect(t *testing.T) {
	old := reloadInterval
	reloadInterval = 0 // see every change of the file at once
	t.Cleanup(func() { reloadInterval = old })
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		t.Run("tls"+map[uint16]string{tls.VersionTLS12: "1.2", tls.VersionTLS13: "1.3"}[v], func(t *testing.T) {
			f := newFixture(t)
			revoked := filepath.Join(f.dir, "revoked.txt")
			must(t, os.WriteFile(revoked, []byte("# none yet\n"), 0o644))
			srv, addr := start(t, Options{Identities: []IdentityFiles{f.server}, Mutual: true, ClientCA: f.caFile, RevokedFile: revoked})
			a, b := f.client(0, v), f.client(1, v)
			for _, c := range []*client{a, b} {
				if _, err := c.connect(addr); err != nil {
					t.Fatal(err)
				}
				if r, err := c.connect(addr); err != nil || !r {
					t.Fatalf("before revocation: resumed %v, %v; want a resumption", r, err)
				}
			}
			// Revoke A (mtime must change: write with a new size).
			must(t, os.WriteFile(revoked, []byte("# revoked\n"+thumbHex(f.clients[0])+"\n"), 0o644))
			if r, err := a.connect(addr); err == nil || r {
				t.Fatalf("revoked client: resumed %v, err %v; want the handshake refused", r, err)
			}
			if _, err := f.client(0, v).connect(addr); err == nil {
				t.Fatal("revoked client's full handshake succeeded")
			}
			if r, err := b.connect(addr); err != nil || !r {
				t.Errorf("client B after A's revocation: resumed %v, %v; want it unaffected", r, err)
			}
			c := srv.Counters()
			if c.Declined["revoked"] != 1 {
				t.Errorf("declined %v, want exactly A's one session declined as revoked", c.Declined)
			}
			// Read right after the clients saw their handshakes fail:
			// the counters must already hold both failures.
			if n := c.Failures[FailureRevoked]; n != 2 || len(c.Failures) != 1 {
				t.Errorf("failures %v: want the revoked client's two handshakes counted as revoked", c.Failures)
			}
		})
	}
}

// TestExpiredClientCertificateNotResumed checks what Go already enforces
// (NotAfter is checked on resumption) with a short-lived certificate and
// a server clock moved past its end.
func TestExpiredClientCertificateNotResumed(t *testing.T) {
	t.Parallel()
	now := time.Now()
	f := newFixture(t, pki.WithValidity(now.Add(-time.Hour), now.Add(time.Hour)))
	b, err := Options{Identities: []IdentityFiles{f.server}, Mutual: true, ClientCA: f.caFile}.build(nil)
	must(t, err)
	cfg := b.cfg
	var skew time.Duration
	cfg.Time = func() time.Time { return time.Now().Add(skew) }
	srv := New(cfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Serve(ctx, ln)
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		skew = 0
		c := f.client(0, v)
		if _, err := c.connect(ln.Addr().String()); err != nil {
			t.Fatal(err)
		}
		before := srv.Counters().Resumed
		skew = 2 * time.Hour // the client certificate has expired
		r, err := c.connect(ln.Addr().String())
		if r || err == nil {
			t.Errorf("TLS %x: expired client certificate: resumed %v, err %v; want refused", v, r, err)
		}
		if srv.Counters().Resumed != before {
			t.Errorf("TLS %x: the server resumed a session of an expired certificate", v)
		}
	}
}

func TestStatefulStoreSingleUse(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv, addr := start(t, Options{Identities: []IdentityFiles{f.server}, SessionStore: StoreStateful})
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		// A cache that never forgets: the client offers the same
		// ticket twice.
		c := f.client(-1, v)
		c.cfg.ClientSessionCache = &stickyCache{}
		if _, err := c.connect(addr); err != nil {
			t.Fatal(err)
		}
		if r, err := c.connect(addr); err != nil || !r {
			t.Fatalf("TLS %x: first use of a stateful ticket: resumed %v, %v", v, r, err)
		}
		if r, err := c.connect(addr); err != nil || r {
			t.Fatalf("TLS %x: second use of the same ticket: resumed %v, %v; want a full handshake", v, r, err)
		}
	}
	if srv.Counters().Declined["unknown"] != 2 {
		t.Errorf("declined %v, want the two reused tickets counted", srv.Counters().Declined)
	}
}

// stickyCache keeps the first session it is given and offers it forever.
type stickyCache struct{ cs *tls.ClientSessionState }

func (s *stickyCache) Get(string) (*tls.ClientSessionState, bool) { return s.cs, s.cs != nil }
func (s *stickyCache) Put(_ string, cs *tls.ClientSessionState) {
	if s.cs == nil {
		s.cs = cs
	}
}

func TestStatefulStoreBounds(t *testing.T) {
	t.Parallel()
	st := newStatefulStore(2, time.Minute)
	clock := time.Now()
	st.now = func() time.Time { return clock }
	st.put("a", []byte("1"))
	st.put("b", []byte("2"))
	st.put("c", []byte("3")) // evicts a
	if got, why := st.take("a"); got != nil || why != DeclinedEvicted || st.len() != 2 {
		t.Fatalf("capacity 2: a = %q (%s), len %d; want it evicted", got, why, st.len())
	}
	if got, why := st.take("a"); got != nil || why != DeclinedUnknown {
		t.Fatalf("a offered again: %q (%s), want unknown: an evicted id is told once", got, why)
	}
	if got, why := st.take("c"); string(got) != "3" || why != "" {
		t.Fatalf("c = %q (%s), want its session", got, why)
	}
	if got, why := st.take("c"); got != nil || why != DeclinedUnknown {
		t.Fatalf("c used again: %q (%s), want unknown (single use)", got, why)
	}
	clock = clock.Add(2 * time.Minute)
	if got, why := st.take("b"); got != nil || why != DeclinedExpired {
		t.Fatalf("an expired session: %q (%s), want expired", got, why)
	}
	for i := 0; i < 300; i++ { // evicted ids are remembered only up to the capacity
		st.put(strings.Repeat("e", i+1), []byte("s"))
	}
	if len(st.evicted) > st.capacity || len(st.evictedOrder) > st.capacity {
		t.Errorf("evicted ids remembered: %d (order %d) for capacity %d", len(st.evicted), len(st.evictedOrder), st.capacity)
	}
	for i := 0; i < 100; i++ { // ids that were taken do not grow the order list forever
		id := string(rune('A'+i%26)) + strings.Repeat("x", i)
		st.put(id, []byte("s"))
		st.take(id)
	}
	if len(st.order) > 4*st.capacity {
		t.Errorf("order list grew to %d entries for capacity %d", len(st.order), st.capacity)
	}
}

// TestSharedTicketKeys: two servers given the same --ticket-keys file
// resume each other's sessions; rotating the file keeps old tickets valid
// while the old key is listed, and drops them once it is not.
// Not parallel: it sets the package variable reloadInterval.
func TestSharedTicketKeys(t *testing.T) {
	old := reloadInterval
	reloadInterval = 0
	t.Cleanup(func() { reloadInterval = old })
	f := newFixture(t)
	keys := filepath.Join(f.dir, "ticket.keys")
	k1, k2 := strings.Repeat("11", 32), strings.Repeat("22", 32)
	must(t, os.WriteFile(keys, []byte(k1+"\n"), 0o600))
	o := Options{Identities: []IdentityFiles{f.server}, TicketKeysFile: keys}
	_, addr1 := start(t, o)
	_, addr2 := start(t, o)
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		c := f.client(-1, v)
		if _, err := c.connect(addr1); err != nil {
			t.Fatal(err)
		}
		if r, err := c.connect(addr2); err != nil || !r {
			t.Fatalf("TLS %x: server 2 did not resume server 1's session: %v %v", v, r, err)
		}
	}
	// Rotate: the new key encrypts, the old one still decrypts.
	c := f.client(-1, tls.VersionTLS13)
	c.cfg.ClientSessionCache = &stickyCache{}
	if _, err := c.connect(addr1); err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(keys, []byte(k2+"\n"+k1+"\n"), 0o600))
	if r, err := c.connect(addr2); err != nil || !r {
		t.Fatalf("after rotation with the old key kept: resumed %v, %v", r, err)
	}
	must(t, os.WriteFile(keys, []byte("# retired k1\n"+k2+"\n"), 0o600))
	if r, err := c.connect(addr2); err != nil || r {
		t.Fatalf("after retiring the old key: resumed %v, %v; want a full handshake", r, err)
	}
}

// TestOptionsErrorsNameTheField checks that a bad option is a
// *field.Error naming its field (the CLI maps it to a flag) and the file
// at fault, and never a command-line flag.
func TestOptionsErrorsNameTheField(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	bad := filepath.Join(f.dir, "bad.keys")
	must(t, os.WriteFile(bad, []byte("zz\n"), 0o600))
	id := []IdentityFiles{f.server}
	tests := []struct {
		o           Options
		field, want string
	}{
		{Options{Identities: id, TicketKeysFile: bad}, "TicketKeysFile", "bad.keys: line 1"},
		{Options{Identities: id, TicketKeysFile: filepath.Join(f.dir, "missing")}, "TicketKeysFile", "missing"},
		{Options{Identities: id, SessionStore: "redis"}, "SessionStore", `"redis": must be tickets or stateful`},
		{Options{Identities: id, SessionCapacity: -1}, "SessionCapacity", "-1: must be positive"},
		{Options{Identities: id, SessionTTL: -time.Second}, "SessionTTL", "-1s: must be positive"},
		{Options{Identities: id, RevokedFile: bad}, "RevokedFile", "RevokedFile applies to client certificates: add Mutual"},
		{Options{Identities: id, Mutual: true}, "Mutual", "(ClientCA FILE)"},
		{Options{Identities: id, Constraints: "no-such-rule"}, "Constraints", "no-such-rule"},
		{Options{Identities: []IdentityFiles{{Cert: "c.pem"}}}, "Identities", "give CERT.pem,KEY.pem or FILE.p12"},
	}
	for _, tt := range tests {
		_, err := NewFromOptions(tt.o)
		var fe *field.Error
		if !errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("options %+v: error %v (%+v), want field %s and %q", tt.o, err, fe, tt.field, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "--") {
			t.Errorf("options %+v: error %q names a command-line flag", tt.o, err)
		}
	}
}
