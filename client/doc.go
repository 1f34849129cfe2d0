// Package client is one connection of tlsbench's client side: how it is
// dialed (TCP, through an HTTP proxy's CONNECT, over QUIC, or over an
// in-memory pipe given as a Dialer), and the request that proves the
// connection after its handshake (Exchange: a one-byte ping-pong, an
// HTTP request, a line, or a wait for what the server sends unasked).
//
// The exchange is what makes a TLS 1.3 client read the NewSessionTicket
// the server sent after its Finished: without it the ticket is never
// stored and every "resumed" handshake is in fact a full one, the
// mistake of openssl s_time -reuse and tls-perf with TLS 1.3. A
// connection ends with an abortive close (SO_LINGER 0, an RST), which
// keeps TIME_WAIT sockets from piling up with the length of a run.
//
// PhaseConn is the raw connection under the client's tls.Conn that notes
// when the handshake's first byte was written and when the first byte
// after it was read, the connection's phases; DetectRequest asks a
// server which request it answers; TrackTicketUse counts the sessions a
// client offers for the first time and again; WatchPeerKeys counts the
// key types of the certificates a server presented. Words names a case's
// settings in the caller's vocabulary.
//
// client knows nothing of iterations, schedules or records (loadgen and
// its measurement build on it). It may import bulk, tlsconf,
// internal/ktls, internal/memconn and the small utilities.
package client
