// Package loadgen generates TLS handshake load and verifies what happened.
//
// A handshake case runs iterations of N handshakes started in waves of
// `concurrency` connections. Each connection is a TCP connect, a timed
// handshake, a one-byte ping-pong and an abortive close:
//
//   - the ping-pong proves the connection works and, in TLS 1.3, makes the
//     client read the NewSessionTicket the server sent after its Finished.
//     Without it the ticket is never stored and every "resumed" handshake
//     is in fact a full one, the mistake of openssl s_time -reuse and
//     tls-perf with TLS 1.3;
//   - the abortive close (SO_LINGER 0, an RST) keeps TIME_WAIT sockets from
//     piling up with the length of the run, which otherwise exhausts
//     ephemeral ports and changes what later iterations measure.
//
// Resumption is checked on every handshake, from the client's DidResume
// and, when the server can be asked, from the server's own count. A resume
// case whose warm-up resumed less than the required share stops with a
// ResumptionError rather than report full handshakes as resumed ones.
package loadgen
