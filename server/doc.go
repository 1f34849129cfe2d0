// Package server is tlsbench's built-in TLS server: it accepts
// connections, completes the handshake, counts what happened (handshakes,
// resumptions, failures by kind) and echoes application data back, so that
// a client can prove the connection works and, in TLS 1.3, read the
// session ticket the server sent after its Finished.
//
// The server can run in the benchmarking process (the in-memory transport)
// or as a child process (Child) that reports its counters, its CPU time
// and its allocations over a control channel that only the parent holds:
// an inherited socketpair, not a network port, so no other client can
// read or reset the counters.
package server
