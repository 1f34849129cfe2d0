// Package ktls moves a finished crypto/tls connection onto Linux kernel TLS
// (kTLS): after the handshake the kernel encrypts what the program writes
// and/or decrypts what it reads, so data moves with plain write(2), read(2),
// sendfile(2) and splice(2).
//
// # Why this way
//
// Go's crypto/tls has no kTLS and exposes neither traffic keys nor record
// sequence numbers; the forks that add kTLS are not on the module proxy and
// lag security fixes. This package uses only the stdlib's public API and
// recovers what the kernel needs from three sources:
//
//   - Secrets come from tls.Config.KeyLogWriter (the NSS key log format),
//     and each connection has its own key log, owned by its RecordConn:
//     ClientConfig clones the client's config per dial, ServerConfig's
//     GetConfigForClient clones the server's per handshake, each logging
//     into the RecordConn under that connection. It keeps the TLS 1.2
//     master secret or the TLS 1.3 handshake and application traffic
//     secrets. TLS 1.3 keys and IVs are HKDF-Expand-Label(secret,
//     "key"/"iv"); the TLS 1.2 key
//     block is PRF(master, "key expansion", server_random+client_random),
//     with the suite's PRF hash (SHA-384 for AES-256-GCM suites).
//   - A RecordConn under the tls.Conn reads record-exactly, so crypto/tls
//     never buffers bytes past the last record it processed (everything
//     after it is still in the socket when the kernel takes over). It also
//     sees both randoms, the role and every record header.
//   - Sequence numbers come from the records actually exchanged. TLS 1.2:
//     the records after ChangeCipherSpec in each direction (Finished plus
//     anything sent in user space afterwards). TLS 1.3: all encrypted
//     records look alike (outer type application_data), so Enable
//     decrypts the records it kept: the first ones open with the handshake
//     traffic keys at sequence 0, 1, ..., every one after them must open
//     with the application keys at 0, 1, ...; the latter count. That is
//     how the server's NewSessionTicket records (which Go sends inside
//     Handshake, right after its Finished) and any user-space ping-pong
//     are counted exactly instead of guessed.
//
// # Hardening: a peer may be hostile
//
// A TLS-intercepting proxy runs this package against clients it does not
// trust, so Enable installs nothing it has not checked:
//
//   - Per-connection key log. Secrets are never looked up by client random
//     in a log shared by connections (a client reusing another
//     connection's random could then make that connection install keys the
//     client knows). Each RecordConn owns its log; a second client random,
//     a label logged twice, a malformed line or more lines than a
//     handshake writes mark it untrusted, and the client random it logged
//     must be the one the RecordConn saw in the ClientHello. Enable refuses
//     such a connection with an error that does not wrap ErrUnsupported
//     (an attack or a bug is not a kernel limit); the tls.Conn still works.
//     Reusing one ClientConfig clone for two handshakes is such a bug.
//   - Keys proven before setsockopt. Every offloaded direction's keys must
//     open one of the connection's own records: TLS 1.2 the Finished
//     record after ChangeCipherSpec at sequence 0 (kept by the RecordConn,
//     at most 256 bytes per direction), TLS 1.3 the application records
//     after the handshake records as above. A mismatch refuses, nothing
//     installed. A TLS 1.3 direction in which nothing was yet sent under
//     the application keys (a client right after Handshake) has no record
//     to prove on; State.Proven leaves it out. For RX the kernel then
//     authenticates the first record itself (a wrong key fails closed with
//     EBADMSG); for TX its secret comes from the same proven,
//     single-random log as the handshake secret that opened its Finished.
//   - Plaintext buffered inside tls.Conn is drained first. When the peer
//     sent data right behind its Finished or a ping-pong and the caller
//     read only part of it, crypto/tls holds the rest (at most one record:
//     the RecordConn never gives it more). After installing, Enable reads
//     it out of the tls.Conn while the RecordConn answers crypto/tls with a
//     temporary net.Error instead of reading the socket (crypto/tls does
//     not record temporary errors as permanent), and Conn.Read and Splice
//     deliver it before anything the kernel decrypts (State.Drained).
//   - TLS 1.2 resumed sessions: crypto/tls logs no CLIENT_RANDOM line for
//     them, so Enable returns ErrTLS12Resumed (it wraps ErrUnsupported:
//     "TLS 1.2 resumed session: crypto/tls does not export its keys") and
//     an auto caller stays in user space.
//   - Probed per cipher and direction. SupportedFor(version, cipher, dir)
//     sets TLS_TX/TLS_RX with dummy keys on a loopback test socket, once
//     per triple and process. Enable asks it before touching the real
//     socket, so a kernel that would take TX and then refuse RX (a crypto
//     module missing) leaves the connection in user space instead of half
//     offloaded (ErrConnBroken). Callers that know version and cipher up
//     front (Mode.DecideFor) learn it before they dial; a long-running
//     process calls ProbeAll at start, so that no probe falls inside what
//     it measures.
//
// The kernel then gets setsockopt(TCP_ULP, "tls") and SOL_TLS TLS_TX/TLS_RX
// with struct tls12_crypto_info_aes_gcm_128, _aes_gcm_256 or
// _chacha20_poly1305 (see cryptoInfo for the byte layout and how the
// kernel uses each field).
//
// # Usage and protocol contract
//
//	srvCfg := ktls.ServerConfig(base)      // server: once, for all connections
//	rc := ktls.WrapConn(tcpConn)           // before the handshake
//	tc := tls.Server(rc, srvCfg)           // or tls.Client(rc, ktls.ClientConfig(base, rc))
//	err := tc.Handshake()
//	// optional user-space exchange, e.g. the benchmark's 1-byte ping-pong
//	kc, err := ktls.Enable(tc, rc, ktls.Both)
//	// from here on use only kc (a net.Conn)
//
// Enable needs, and cannot fully check, that at the moment it is called:
//
//  1. Handshake has returned and no Read or Write on tc is in progress
//     (crypto/tls would otherwise have a partial record);
//  2. the peer does not send a TLS 1.3 KeyUpdate (Go never initiates one).
//
// Both ends may switch independently and at any record boundary; neither
// needs to know whether the other uses kTLS. A TLS 1.3 client may switch
// right after Handshake: the server's NewSessionTicket then reaches the
// kernel, which hands it up as a handshake record that Conn.Read skips and
// counts (TicketsSkipped; the ticket is not stored, so that connection's
// session cannot be resumed). The benchmark instead does a 1-byte
// ping-pong in user space first, so that the ticket has been read and
// stored by crypto/tls; Enable counts those records too.
//
// After the switch, Conn.Read uses recvmsg(2) to learn each record's type
// (TLS_GET_RECORD_TYPE): close_notify gives io.EOF (so does a TCP FIN
// without one, as with crypto/tls; CloseNotified tells them apart, for a
// relay that must pass a cut stream on as cut), other alerts an error
// naming the alert, KeyUpdate ErrKeyUpdate (the Debian 6.1 kernel used in
// the VM tests cannot re-key; rekey support arrived in Linux 6.14 and is not
// implemented here). Conn.Close and CloseWrite send close_notify as an alert
// record through sendmsg(2) with TLS_SET_RECORD_TYPE. Conn.ReadFrom lets
// io.Copy(conn, *os.File) use sendfile(2) when TX is offloaded.
//
// # Splice: relaying between two kTLS connections
//
// Splice(dst, src, max) moves what src's kernel decrypts (RX) into dst's
// kernel encryption (TX) through a pipe with splice(2), so a relay's
// payload never enters user space. Both splice(2) calls are non-blocking
// (SPLICE_F_NONBLOCK: the kernel's kTLS splice_read ignores the socket's
// O_NONBLOCK) and wait in the runtime's netpoller through the sockets'
// RawConn Read and Write, so both connections' deadlines apply. The kernel
// refuses to splice a record that is not application data (EINVAL from
// tls_sw_splice_read, the record stays queued): Splice reads that one
// record with recvmsg(2) as Read would (close_notify ends the copy with a
// nil error, an alert fails it, a TLS 1.3 ticket is skipped) and goes on.
// The only bytes that cross user space are those drained from crypto/tls
// at Enable. Conn.SyscallConn exposes the socket for such calls but hides
// the runtime's poll descriptor, so os.File's own sendfile/splice paths
// never take a Conn for a plain socket and bypass a user-space direction.
//
// # Choosing the TLS 1.3 cipher with two Go endpoints
//
// crypto/tls ignores Config.CipherSuites for TLS 1.3. A Go server picks
// AES-128-GCM unless it lacks AES hardware or the first cipher suite the
// client lists (TLS 1.2 suites included) is not AES-GCM, in which case it
// picks ChaCha20-Poly1305. PreferTLS13Cipher uses this documented
// behaviour of the server's preference logic. TLS_AES_256_GCM_SHA384
// cannot be negotiated between two Go endpoints (it is never first in
// either preference list, FIPS mode included); the tests exercise the
// kernel with it through the software record layer instead.
//
// # Fallback
//
// Supported probes the kernel once and SupportedFor once per version,
// cipher and direction; Mode.Decide and Mode.DecideFor turn --ktls
// off|auto|on into "use kTLS", "user space, because ..." or an error.
// Every Enable error is one line; errors wrapping ErrUnsupported mean
// "this kernel cannot" and leave the tls.Conn usable in user space. Off Linux the
// package compiles and every call reports "kTLS is not supported on GOOS".
//
// # Tests
//
// Outside a kTLS kernel the tests check the key schedule against RFC 8448
// and published TLS 1.2 PRF vectors, the crypto_info layouts against the
// uapi sizes and offsets, the RecordConn (including a fuzz target), the
// per-connection key log (duplicates refused), the key proofs against
// tampered key log lines, draining, and, end to end, a software model of
// the kernel's record layer fed with the exact crypto_info bytes Enable
// would pass, talking to a real crypto/tls peer over loopback. Tests named
// TestVM* need a kernel with CONFIG_TLS and run inside the VM built by
// scripts/ktls-vm-test.sh, where TLSBENCH_KTLS_VM=1 makes them mandatory:
// they add kernel to kernel splice relays (tls_stat per leg), the key
// proof refusing in the real kernel path, and SupportedFor.
//
// ktls owns the kernel interface and the key schedule. It imports nothing
// of tlsbench: client, server and tlsconf use it.
package ktls
