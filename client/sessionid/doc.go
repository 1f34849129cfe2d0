// Package sessionid resumes TLS 1.2 sessions by session ID, the
// abbreviated handshake of RFC 5246 §7.3 that servers with a session
// cache and no session tickets offer (nginx with ssl_session_tickets
// off, JSSE with tickets off, openssl s_server -no_ticket). Go's
// crypto/tls resumes TLS 1.2 by ticket only.
//
// Handshake runs the first, full handshake with crypto/tls itself, so
// the server is verified as the caller's tls.Config says. The package's
// clone of that configuration disables session tickets (no ticket
// extension is sent: a server that has tickets cannot answer with one),
// allows TLS 1.2 only and the suites that can be resumed. From the
// handshake it keeps a Session: the session ID, read from the plaintext
// ServerHello in the bytes the handshake read (a recording net.Conn
// under the tls.Conn); the master secret, from the configuration's key
// log line for the handshake's client random (a KeyLogWriter the caller
// set still gets every line); the suite, whether the extended master
// secret (RFC 7627) was negotiated, the server name, the ALPN protocol
// and the verified certificates. A server that sends an empty session
// ID keeps no session: ErrNoSessionID, with the connection usable.
//
// Resume writes the ClientHello itself: TLS 1.2, a fresh random, the
// session ID, the session's suite alone (a server resuming must choose
// it, and one that does not resume is not talked to any further), null
// compression; server_name, extended_master_secret when the session has
// it, an empty renegotiation_info, supported_groups, ec_point_formats and
// signature_algorithms (so that a server that checks an ECDHE suite's
// needs before it looks in its cache accepts the hello), ALPN with the session's
// protocol; never a session_ticket extension. A ServerHello that echoes
// the session ID with its suite and extended master secret state is a
// resumption: the keys come from key_block = PRF(master_secret, "key
// expansion", server_random ‖ client_random); the server's
// ChangeCipherSpec and encrypted Finished are read and its verify_data
// checked (ErrBadFinished otherwise); the client's ChangeCipherSpec and
// Finished are sent, and the Conn returned carries application data.
//
// crypto/tls's own server echoes the client's session ID and caches
// nothing: its full handshakes give ErrNoSessionID. A server's Finished
// is expected alone in its record, as every server sends it.
//
// A ServerHello with another session ID is a cache miss: the server has
// started a new session. Resume closes the connection without an alert
// (the server sees the end of the stream mid-handshake, as with a client
// that gave up) and returns ErrNotResumed; it never falls back to a full
// handshake, which the caller may run on a new connection. Protocol
// errors send the fatal alert RFC 5246 names for them (plaintext during
// the handshake: this side's keys are only used after its
// ChangeCipherSpec) before the connection is closed. A server may drop
// a session from its cache after a resumption of it failed (OpenSSL
// does): the caller learns a new one.
//
// Conn is the record layer of the ECDHE suites with AES-128-GCM,
// AES-256-GCM (RFC 5288: 4-byte salt, 8-byte explicit nonce, here the
// sequence number) and ChaCha20-Poly1305 (RFC 7905: the IV XOR the
// sequence number); other suites are ErrUnsupportedSuite before anything
// is sent. Records carry at most 16 KiB of plaintext; longer or
// malformed records, and records that do not authenticate, fail the
// connection with the matching alert. Close sends close_notify; a fatal
// alert from the server is an *AlertError naming it; a close_notify is
// io.EOF. Renegotiation is refused: a HelloRequest is answered with a
// no_renegotiation warning alert and reading goes on. Deadlines are the
// underlying connection's. ConnectionState reports what a load
// generator shows of a tls.Conn (DidResume is always true; the
// certificates are the session's).
//
// Keys and master secrets are kept in memory only; nothing is logged.
package sessionid
