// Package peers starts real TLS servers for tlsbench's tests and
// benchmarks: `openssl s_server` with given flags, nginx from a
// configuration written to a temporary directory, GnuTLS's gnutls-serv, a
// small Java server on the JDK's own TLS stack (JSSE, compiled in the test
// from jsse/JSSEServer.java), ngtcp2's QUIC server and Squid. They listen
// on 127.0.0.1 (gnutls-serv, which cannot choose its address, on every
// address of its port; the tests reach it through loopback only), on a
// free port, and are ready (accepting) when Start returns; Stop ends
// them, and the test helpers (OpenSSL, NginxT, GnuTLS, JSSE...) stop them
// when the test ends.
//
// A test that needs a peer calls Require (or a helper that does): when the
// tool is missing the test is skipped, except when the CI environment
// variable is set, where a missing tool is a failure: CI must install
// Debian's openssl and nginx-light packages, and a green run that skipped
// every interop test would prove nothing. Under go test -short Require
// skips the test even when the tool is installed: -short is the inner loop
// without real peers, and this is the one place that decides it.
//
// Versions reports the peers' versions for the environment of results
// measured against them (results.Env.Peers).
//
// peers is test support and links the testing package: no production
// package may import it (internal/archtest checks). What the binary needs
// to name a process, Identify, lives in internal/procid.
package peers
