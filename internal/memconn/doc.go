// Package memconn is an in-memory, buffered, full-duplex net.Conn pair for
// the --transport memory comparison.
//
// net.Pipe is unbuffered: every Write waits for a matching Read. A TLS 1.3
// server writes its session ticket right after its Finished while the
// client is still writing its own Finished, so over net.Pipe both wait on
// each other forever. Real sockets have kernel buffers; this pipe has a
// bounded buffer per direction to behave like them, with deadlines, so that
// crypto/tls runs over it unchanged.
//
// It imports nothing of tlsbench.
package memconn
