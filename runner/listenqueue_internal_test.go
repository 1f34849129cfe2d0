package runner

import "testing"

// TestListenQueueOfCase: the machine's listen-queue counters are counted
// only when every listener the connections reach is on this machine's
// loopback, and over TCP; they are named after the listeners they can
// stand for.
func TestListenQueueOfCase(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, transport, proxy, target, want string
	}{
		{"built-in server", TransportTCP, "", "", "the server's"},
		{"built-in over IPv6", TransportTCP6, "", "", "the server's"},
		{"loopback target", TransportTCP, "", "127.0.0.1:5556", "the server's"},
		{"another loopback address", TransportTCP, "", "127.0.0.2:443", "the server's"},
		{"localhost", TransportTCP, "", "localhost:443", "the server's"},
		{"IPv6 loopback", TransportTCP, "", "[::1]:443", "the server's"},
		{"remote target", TransportTCP, "", "192.0.2.10:443", ""},
		{"remote name", TransportTCP, "", "example.com:443", ""},
		{"memory", TransportMemory, "", "", ""},
		{"quic", TransportQUIC, "", "", ""},
		{"built-in proxy and server", TransportTCP, ProxyBuiltin, "", "the proxy's or the server's"},
		{"built-in proxy, remote target", TransportTCP, ProxyBuiltin, "192.0.2.10:443", "the proxy's"},
		{"loopback proxy URL", TransportTCP, "http://127.0.0.1:3128", "localhost:8443", "the proxy's or the server's"},
		{"remote proxy URL", TransportTCP, "http://192.0.2.1:3128", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &Case{Transport: tt.transport, Proxy: tt.proxy}
			if got := listenQueue(c, &sideSpec{target: Target{Addr: tt.target}}); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
