// Package ktls moves a finished crypto/tls connection onto Linux kernel TLS
// (kTLS): after the handshake the kernel encrypts what the program writes
// and/or decrypts what it reads, so data moves with plain write(2), read(2)
// and sendfile(2).
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
//     secrets. TLS 1.3 keys
//     and IVs are HKDF-Expand-Label(secret, "key"/"iv"); the TLS 1.2 key
//     block is PRF(master, "key expansion", server_random+client_random),
//     with the suite's PRF hash (SHA-384 for AES-256-GCM suites).
//   - A RecordConn under the tls.Conn reads record-exactly, so crypto/tls
//     never buffers bytes past the last record it processed (everything
//     after it is still in the socket when the kernel takes over). It also
//     sees both randoms, the role and every record header.
//   - Sequence numbers come from the records actually exchanged. TLS 1.2:
//     the records after ChangeCipherSpec in each direction (Finished plus
//     anything sent in user space afterwards). TLS 1.3: all encrypted
//     records look alike (outer type application_data), so Enable trial-
//     decrypts the first few with the application keys; the first that
//     opens at sequence 0 starts the epoch and every record from there on
//     counts. That is how the server's NewSessionTicket records (which Go
//     sends inside Handshake, right after its Finished) and any user-space
//     ping-pong are counted exactly instead of guessed.
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
//  2. the caller has read all application data crypto/tls decrypted
//     (plaintext buffered inside tls.Conn would be lost);
//  3. the peer does not send a TLS 1.3 KeyUpdate (Go never initiates one).
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
// (TLS_GET_RECORD_TYPE): close_notify gives io.EOF, other alerts an error
// naming the alert, KeyUpdate ErrKeyUpdate (the Debian 6.1 kernel used in
// the VM tests cannot re-key; rekey support arrived in Linux 6.14 and is not
// implemented here). Conn.Close and CloseWrite send close_notify as an alert
// record through sendmsg(2) with TLS_SET_RECORD_TYPE. Conn.ReadFrom lets
// io.Copy(conn, *os.File) use sendfile(2) when TX is offloaded.
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
// Supported probes the kernel once; Mode.Decide turns --ktls off|auto|on
// into "use kTLS", "user space, because ..." or an error. Every Enable
// error is one line; errors wrapping ErrUnsupported mean "this kernel
// cannot" and leave the tls.Conn usable in user space. Off Linux the
// package compiles and every call reports "kTLS is not supported on GOOS".
//
// # Tests
//
// Outside a kTLS kernel the tests check the key schedule against RFC 8448
// and published TLS 1.2 PRF vectors, the crypto_info layouts against the
// uapi sizes and offsets, the RecordConn (including a fuzz target), the
// per-connection key log, and, end to end, a software model of the kernel's record layer
// fed with the exact crypto_info bytes Enable would pass, talking to a real
// crypto/tls peer over loopback. Tests named TestVM* need a kernel with
// CONFIG_TLS and run inside the VM built by scripts/ktls-vm-test.sh, where
// TLSBENCH_KTLS_VM=1 makes them mandatory.
//
// ktls owns the kernel interface and the key schedule. It imports nothing
// of tlsbench: client, server and tlsconf use it.
package ktls
