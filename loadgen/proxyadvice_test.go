package loadgen_test

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/connerr"
	"github.com/tlsbench/tlsbench/measure"
)

// TestProxyRefusalAdvice: each refusal of CONNECT gets the advice of its
// own cause, read from the status and the proxy's reason header: a
// certificate the proxy does not trust is not a target that is down, a
// full proxy is not a refused port. A caller's Words replace the advice.
func TestProxyRefusalAdvice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, head, failure, advice string
	}{
		{"untrusted origin", "HTTP/1.1 502 Bad Gateway\r\nX-Tlsbench-Error: origin localhost:8443: tls: failed to verify certificate: x509: certificate signed by unknown authority\r\n\r\n",
			client.AdviceProxyUntrusted, "the proxy does not trust the target's certificate"},
		{"origin down", "HTTP/1.1 502 Bad Gateway\r\nX-Tlsbench-Error: origin localhost:8443: dial tcp 127.0.0.1:8443: connect: connection refused\r\n\r\n",
			client.AdviceProxyUnreachable, "the proxy could not reach the target"},
		{"tlsbench proxy full", "HTTP/1.1 503 Service Unavailable\r\nX-Tlsbench-Error: the proxy serves at most 1 connections at once; try again later\r\n\r\n",
			client.AdviceProxyFull, "the proxy is at its connection limit"},
		{"squid connect fail", "HTTP/1.1 503 Service Unavailable\r\nX-Squid-Error: ERR_CONNECT_FAIL 111\r\n\r\n",
			client.AdviceProxyUnreachable, "the proxy could not reach the target"},
		{"bare 503", "HTTP/1.1 503 Service Unavailable\r\n\r\n",
			client.AdviceProxyUnreachable, "the proxy could not reach the target"},
		{"port", "HTTP/1.1 403 Forbidden\r\nX-Tlsbench-Error: port 8443 is not allowed; allowed: 443\r\n\r\n",
			client.AdviceProxyPort, "the proxy does not tunnel to this port"},
		{"source", "HTTP/1.1 403 Forbidden\r\nX-Tlsbench-Error: this client's address is not allowed to use the proxy\r\n\r\n",
			client.AdviceProxySource, "the proxy does not serve this client's address"},
		{"destination", "HTTP/1.1 403 Forbidden\r\nX-Tlsbench-Error: destination not allowed: 10.0.0.1 is not in --allow-dest; the proxy dials only --allow-dest destinations (default: this machine)\r\n\r\n",
			client.AdviceProxyDest, "the proxy does not tunnel to the target's address"},
		{"squid denied", "HTTP/1.1 403 Forbidden\r\nX-Squid-Error: ERR_ACCESS_DENIED 0\r\n\r\n",
			"", "the proxy refuses this client or this destination port"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			addr := hostileProxy(t, func(c net.Conn) { io.WriteString(c, tc.head) })
			_, err := client.ProxyDialer{Proxy: addr, Target: "localhost:8443"}.Dial(t.Context(), time.Now().Add(30*time.Second))
			var pe *client.ProxyError
			if !errors.As(err, &pe) {
				t.Fatalf("err %v: want a ProxyError", err)
			}
			if pe.Failure() != tc.failure || !strings.Contains(err.Error(), tc.advice) {
				t.Errorf("failure %q, error %q; want %q and %q", pe.Failure(), err, tc.failure, tc.advice)
			}
			if tc.failure != client.AdviceProxyUnreachable && strings.Contains(err.Error(), "could not reach") {
				t.Errorf("error %q blames the target's reachability", err)
			}
			words := client.Words{Advice: map[string]string{tc.failure: "do this instead"}}
			if got := words.ProxyAdvice(err); got != (tc.failure != "") {
				t.Errorf("ProxyAdvice = %v", got)
			}
			if tc.failure != "" && !strings.HasSuffix(err.Error(), ": do this instead") {
				t.Errorf("with words: %q", err)
			}
		})
	}
}

// TestProxyDownAdvice: a proxy that refuses the connection itself is
// named as the one that is not listening, not the server.
func TestProxyDownAdvice(t *testing.T) {
	t.Parallel()
	proxy := closedAddr(t)
	_, err := client.ProxyDialer{Proxy: proxy, Target: "localhost:8443"}.Dial(t.Context(), time.Now().Add(30*time.Second))
	var de *client.ProxyDialError
	if !errors.As(err, &de) || connerr.Kind(err) != connerr.Refused || !strings.Contains(err.Error(), "connecting to proxy "+proxy) {
		t.Fatalf("err %v (kind %s): want a refused ProxyDialError naming the proxy", err, connerr.Kind(err))
	}
	if h := client.RefusedHint(err); h != "is the proxy listening there?" {
		t.Errorf("hint %q", h)
	}
	if h := client.RefusedHint(errors.Unwrap(err)); h != "is the server listening there?" {
		t.Errorf("hint for a server %q", h)
	}
}

// TestResumptionHintReplacesServerAdvice: a hint from the caller (a
// proxy that does not resume the client's sessions) replaces the advice
// that blames the server's tickets.
func TestResumptionHintReplacesServerAdvice(t *testing.T) {
	t.Parallel()
	e := &measure.ResumptionError{Case: "c", Total: 10, Setting: "--min-resumption", Required: 0.9}
	if !strings.Contains(e.Error(), "the server may not issue") {
		t.Errorf("without a hint: %q", e)
	}
	e.Hint = "the proxy does not resume the client's sessions"
	if msg := e.Error(); strings.Contains(msg, "the server may not") || !strings.Contains(msg, "; the proxy does not resume the client's sessions, or lower --min-resumption to measure anyway") {
		t.Errorf("with a proxy hint: %q", msg)
	}
}
