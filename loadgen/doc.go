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
// An iteration's figure is its handshake: the time its waves took up to
// their last successful handshake, per handshake (the wall time per
// connection, which the exchange after the handshake adds to, is kept
// beside it), and notes name an exchange, or a Nagle and delayed-ACK
// stall, that sets the connection rate (headline.go).
//
// Resumption is checked on every handshake, from the client's DidResume
// and, when the server can be asked, from the server's own count. A resume
// case whose warm-up resumed less than the required share stops with a
// ResumptionError rather than report full handshakes as resumed ones.
//
// An open-loop case (HandshakeCase.Rate) starts its connections on a
// schedule instead, constant or Poisson, each iteration a window of
// equal length: latency counts from each connection's intended start,
// so that a server that falls behind shows it rather than slowing the
// load (no coordinated omission), with the service time from the actual
// start beside it. Starts that wait for the in-flight cap are counted
// late, those that find no room before their window ends dropped, and a
// case that does not hold its schedule fails with a RateError that says
// whether the client's CPU or the cap (a slow server) held it back.
//
// Every measured connection's time is split into phases, each into an
// HDR histogram kept over the measured iterations only: the connect, the
// handshake from the client's first byte written, and the wait from its
// end to the first byte read after it. A server that times its own part
// (the built-in one) reports cumulative histograms in its snapshots,
// which are differenced at the iteration boundaries like its counts.
//
// A QUIC case (HandshakeCase.QUIC) runs each connection over QUIC on
// UDP: no connect, a timed handshake from the dial, and tlsbench's own
// exchange on a stream (or an HTTP/3 request), read to the stream's end
// so that the TLS 1.3 ticket is stored. With early data on, a connection
// that resumes a session whose ticket permits it sends its request in
// its first flight (0-RTT); each connection records whether early data
// was offered, accepted or rejected (the request then sent again a
// round trip later), and the time from its dial to the first byte of
// the answer, which 0-RTT exists to cut. A case whose client saw early
// data accepted that the server did not count (or the reverse) fails
// with an EarlyDataError. See quic.go.
//
// A throughput case (RunThroughput) keeps its connections open and moves
// data over them in the wire protocol of package bulk.
//
// Each case runs in three steps: measure the iterations, summarise what
// the kept ones add up to, and build the record from that summary.
//
// loadgen owns the client side only. It imports no server code: it sees
// a server through Dialer and ServerObserver (the adapters to tlsbench's
// built-in server live in runner), and it knows no command line: a case's
// settings are named by their fields, in *field.Error for settings it
// cannot run with, and a caller with its own vocabulary passes it in
// Words. It may import bulk, stats, results, tlsconf and internal/ktls.
package loadgen
