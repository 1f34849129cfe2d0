package proxy_test

import (
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/proxy"
)

// TestOriginErrorsInUsersWords: the 502 answer and the log line say why
// an origin failed in words for users: a silent origin timed out waiting
// for its handshake, an unknown host cannot be resolved (without the
// resolver's address), never "context deadline exceeded" or "lookup".
func TestOriginErrorsInUsersWords(t *testing.T) {
	t.Parallel()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := silent.Accept() // and never a byte of TLS
			if err != nil {
				close(held)
				return
			}
			held <- c
		}
	}()
	t.Cleanup(func() { // after the parallel subtests
		silent.Close()
		for c := range held {
			c.Close()
		}
	})
	silentPort := silent.Addr().(*net.TCPAddr).Port
	org := startOrigin(t)
	for _, tc := range []struct {
		name, target, want, kind string
	}{
		{"silent origin", "127.0.0.1:" + strconv.Itoa(silentPort), "timed out after 1.5s waiting for the origin's TLS handshake", "origin:timeout"},
		{"unknown host", "no-such-host.invalid:" + strconv.Itoa(org.port), "cannot resolve host no-such-host.invalid", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := startProxy(t, org, proxy.Options{MintCache: true, HandshakeTimeout: 1500 * time.Millisecond,
				ConnectPorts: []int{org.port, silentPort}})
			_, resp := connect(t, p.addr, tc.target)
			reason := resp.Header.Get(proxy.ErrorHeader)
			wantReason := "origin " + tc.target + ": " + tc.want
			if resp.StatusCode != 502 || !strings.HasPrefix(reason, wantReason) {
				t.Errorf("answer %s %q; want 502 %q", resp.Status, reason, wantReason)
			}
			log := p.log.String()
			if !strings.Contains(log, tc.want) {
				t.Errorf("log does not say %q:\n%s", tc.want, log)
			}
			// The resolver's address would show as "on IP:53" (a bare
			// ":53" would match the log's timestamps and ports).
			for _, internal := range []string{"context deadline", "lookup ", "dial tcp"} {
				if strings.Contains(reason, internal) || strings.Contains(log, internal) {
					t.Errorf("%q shown to users: %q\n%s", internal, reason, log)
				}
			}
			if resolver.MatchString(reason) || resolver.MatchString(log) {
				t.Errorf("the resolver's address shown to users: %q\n%s", reason, log)
			}
			if c := p.Counters(); tc.kind != "" && c.Failures[tc.kind] != 1 {
				t.Errorf("counters %+v: want one %s", c, tc.kind)
			}
		})
	}
}

// resolver matches a name server's address as Go's resolver errors give
// it ("on 10.255.255.53:53").
var resolver = regexp.MustCompile(`\bon [0-9a-f.:\[\]]+:53\b`)
