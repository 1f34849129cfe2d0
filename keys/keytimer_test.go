package keys

import (
	"crypto/tls"
	"net"
	"testing"
	"time"
)

// timedConn is a server connection that wants the key manager's time.
type timedConn struct {
	net.Conn
	calls int
	total time.Duration
}

func (c *timedConn) AddKeyTime(d time.Duration) {
	c.calls++
	c.total += d
}

// TestKeyTimer: a connection that is a KeyTimer hears of the choice of
// its certificate and, with the key cache off, of the key read for its
// handshake: once and twice per full handshake.
func TestKeyTimer(t *testing.T) {
	t.Parallel()
	p := newTestPKI(t)
	for _, tt := range []struct {
		name  string
		cache bool
		calls int
	}{{"cache on", true, 1}, {"cache off", false, 2}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := mustNew(t, p.sources(idECDSA), WithKeyCache(tt.cache))
			cc, sc := net.Pipe()
			tc := &timedConn{Conn: sc}
			srv := tls.Server(tc, &tls.Config{GetCertificate: m.GetCertificate})
			done := make(chan error, 1)
			go func() { done <- srv.Handshake(); sc.Close() }()
			cli := tls.Client(cc, &tls.Config{ServerName: "localhost", RootCAs: p.pool, MaxVersion: tls.VersionTLS13})
			cc.SetDeadline(time.Now().Add(20 * time.Second))
			if err := cli.Handshake(); err != nil {
				t.Fatal(err)
			}
			cc.Close()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if tc.calls != tt.calls {
				t.Errorf("told %d times (%v in all), want %d", tc.calls, tc.total, tt.calls)
			}
		})
	}
}
