// Package servertest starts, for tests, what tlsbench's code is tested
// against: the built-in server in this process (over TCP or QUIC) or as a
// child process, a TLS origin with a fresh test PKI, the built-in proxy,
// and a plain accept loop, each on a free port of 127.0.0.1 and stopped
// when the test ends, its goroutines waited for.
//
// A test binary that starts children calls testchild.RunIfChild in its
// TestMain: the child is that binary again.
//
// servertest is test support: it imports testing, and no production
// package may import it (internal/archtest checks).
package servertest
