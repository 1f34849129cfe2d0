// Package probe finds out what a TLS server really does about versions
// and session resumption, over TCP or QUIC (early data included), before
// anyone trusts a resumed-handshake figure measured against it.
//
// Run makes a few connections per TLS version (1.0 to 1.3) and reports,
// as data (Report, rendered by WriteTable and WriteJSON):
//
//   - whether each version is accepted, and the cipher suite, key-exchange
//     group and ALPN protocol it negotiates;
//   - the certificate chain (subject, key type and size, signature
//     algorithm, expiry) and whether it verifies;
//   - the session tickets of one full handshake: how many, and their
//     lifetime hints;
//   - TLS 1.2 ticket resumption and TLS 1.3 PSK resumption, whether a
//     ticket resumes twice or only once, and whether a session made with a
//     client certificate resumes (and the server still honours the
//     identity);
//   - TLS 1.2 resumption by session ID (RFC 5246's abbreviated handshake,
//     by client/sessionid: crypto/tls resumes TLS 1.2 by ticket only),
//     from a full handshake that offers no ticket; Concurrency
//     simultaneous resumptions of that one session, which all resume only
//     when the server's session cache is shared by all its connections
//     (not per worker process); and which ways TLS 1.2 resumes: by
//     ticket, by session ID, both or neither;
//   - the resumption rate of Concurrency simultaneous handshakes, measured
//     by tlsbench's load generator with the session pool `tlsbench run`
//     uses.
//
// # Yes, no and not tested
//
// Every finding is Yes or No only when tlsbench observed it. What Go's
// client cannot test is NotTested with the reason, never No: resumption
// by session ID of a server whose suites client/sessionid does not
// implement, everything after a certificate that did not verify (unless
// Insecure), resumption with TLS 1.0 and 1.1. Error is a check that failed for a
// reason that answers nothing (a timeout, a refused client certificate).
//
// # How tickets are counted
//
// crypto/tls does not say how many NewSessionTicket messages a connection
// received, so the probe counts them itself, in two ways:
//
//   - TLS 1.3 tickets are encrypted. Each connection gets a client session
//     cache of its own that records every Put: crypto/tls stores exactly
//     one session per ticket it accepts (it drops lifetime-0 tickets, which
//     are therefore not counted). The lifetime hint is the session's use-by
//     time minus its creation time, read from SessionState.Bytes, whose
//     encoding crypto/tls documents; the connection's clock is frozen so
//     that the difference is exact. An encoding this parser does not
//     recognize yields "lifetime unknown", never a guess.
//   - TLS 1.2 tickets travel in the clear, before the server's
//     ChangeCipherSpec. A wrapper under crypto/tls keeps the plaintext
//     handshake bytes and parses the NewSessionTicket messages and their
//     lifetime hints from the records themselves. The same wrapper reads
//     the ClientHello, to confirm that a resumption attempt really offered
//     the ticket (session_ticket or pre_shared_key extension).
//
// # Why each connection sends a request
//
// A TLS 1.3 server sends its tickets after the handshake, and crypto/tls
// processes them only while the application reads. A client that closes
// right after the handshake never stores a ticket, and every "resumed"
// handshake after it is a full one; that is how openssl s_time -reuse and
// similar tools report TLS 1.3 resumption that never happened. So every
// probe connection sends Options.Request, reads the answer, and keeps
// reading for TicketWait for tickets sent late. By default the server is
// asked first which request it answers (an HTTP HEAD, a GET, a line, a
// ping, or none at all: see client.DetectRequest), and the report says
// what it answered; a request it leaves unanswered is sent once, and the
// report says what was sent. See Request for the choices.
//
// # Over QUIC
//
// With Options.QUIC the probe speaks QUIC (TLS 1.3 on UDP, quic-go) and
// reports QUIC instead of Versions: the ALPN protocol the server chose and
// the answer to the request in it (HTTP/3 through quic-go's http3 for h3,
// tlsbench's ping for tlsconf.ALPNQUICPing), the QUIC versions it
// completes a handshake in, each offered alone, its tickets and whether
// they allow early data (max_early_data_size 0xffffffff, as crypto/tls
// reads it into SessionState.EarlyData), resumption, whether a request
// sent as early data on an unused ticket is accepted (the handshake
// completes as 0-RTT) or rejected, whether the same ticket's early data
// is accepted again on its second use, and what the server does with a
// replayed 0-RTT flight.
//
// Every QUIC connection goes through a relay on UDP loopback (see relay)
// that keeps the client's first flight byte for byte and counts the
// server's packets by what their unencrypted headers say (see
// PacketCounts). The replay sends that flight again from another address,
// after a delay long enough for the server to have forgotten the original
// connection, Initial datagrams first and 0-RTT datagrams alone once the
// server has answered them. A server that accepts 0-RTT packets must
// acknowledge them in 1-RTT packets within its acknowledgement delay, and
// one that rejects them never does: 1-RTT packets alone in answer to the
// replayed 0-RTT datagrams are a yes, none a no. The report keeps the
// calibration beside the verdict: what the server sent, before the
// client's Finished, to the same flight the first time and to a
// resumption without early data, the relay holding the Finished back for
// the same window as the replay is watched. What the observation cannot
// separate is not tested, with the counts.
//
// crypto/tls notes a ticket's arrival in whole seconds and so states its
// age up to a second too old; servers may refuse early data for that
// (GnuTLS does). The probe runs each connection that offers a ticket
// behind the real clock by the rounding, so that the age it states is the
// real one (see recorder.ticketSkew).
//
// probe owns the probe's procedure and report. It may import client (the
// requests and connection procedure the benchmark uses), client/sessionid
// and its own sessionidcheck (the connections of the session-ID checks),
// tlsconf, pki, results and quic-go; never loadgen, server, runner or internal/cli: the
// resumption-rate test's load comes through Options.Load. Its report
// names the settings it advises on by their Options field, or as
// Options.SettingName says (the command line passes its flags).
package probe
