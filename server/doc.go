// Package server is tlsbench's built-in TLS server: it accepts
// connections, completes the handshake, counts what happened (handshakes,
// resumptions, failures by kind) and echoes application data back, so that
// a client can prove the connection works and, in TLS 1.3, read the
// session ticket the server sent after its Finished. A connection that
// starts with an HTTP/1.x request gets a short HTTP response instead.
//
// The server can run in the benchmarking process (the in-memory transport)
// or as a child process (Child) that reports its counters, its CPU time
// and its allocations over a control channel that only the parent holds:
// an inherited socketpair, not a network port, so no other client can
// read or reset the counters. Besides counts, the server times its own
// part of each handshake (from accept to the end of its handshake, its
// key manager's and its session store's share) into cumulative HDR
// histograms that travel in its counters (Counters.Phases).
//
// # Sessions
//
// Options choose how sessions resume: stateless tickets (the default), or
// a stateful store (SessionStore "stateful") that keeps SessionCapacity
// sessions for SessionTTL and hands out single-use ids. Ticket keys can
// come from a file shared by several servers and re-read when it changes;
// a revocation list of client certificate thumbprints refuses their full
// handshakes and their sessions. Counters.Declined says why sessions were
// not resumed: revoked, undecryptable (a ticket under a key the server no
// longer has: rotated keys), evicted or expired (stateful ids), unknown (a
// stateful id never issued or already used once: single use).
//
// # Throughput
//
// A connection whose first bytes are the setup message of the bulk
// protocol is a throughput connection: the server answers in that
// protocol, sends or receives the generated stream or a file the
// operator allowed (WithSources), verifies what arrives and, when
// allowed (WithKTLS), switches the connection to kernel TLS first.
//
// # QUIC and early data
//
// ListenQUIC and ServeQUIC serve QUIC (quic-go, TLS 1.3) with the same
// identities, key manager, session policy and counters as TCP; a child
// server does with Options.QUIC, on UDP at its TCP address and port. A
// connection speaks tlsconf.ALPNQUICPing (a byte echoed, the stream
// ended once the handshake is counted and its session ticket is out) or
// HTTP/3 (a short answer to GET and HEAD). The server learns of a QUIC
// handshake through quic-go's and crypto/tls's callbacks rather than on
// a goroutine of its own (see quicConn): it counts it when it completes
// or fails, with the QUIC version and whether its ClientHello offered
// early data and the server accepted it (Counters.QUICVersions,
// EarlyData*). Two things the TCP path measures it cannot: the
// handshake's own CPU time (WithHandshakeCPU counts QUIC handshakes as
// not measured), and the ClientHello's bytes, from which the key manager
// reads signature_algorithms_cert (without them it ranks chains by
// signature_algorithms, and refuses none for it).
//
// Early data is decided per resumption by the session policy
// (Options.EarlyDataPolicy; see earlyData): the tickets issued over QUIC
// always allow it, and the server accepts it on a ticket's first use
// only (the default), remembering each such ticket for the minute its
// early data may be accepted at all, refuses it, or accepts it every
// time, replays included.
//
// Hostile QUIC peers meet bounds: the handshake timeout (quic-go's idle
// timeout and the server's own), the idle timeout after it, a few
// streams with windows of a few KiB each, and address validation (a
// Retry) for new clients once thousands of handshakes are in flight or
// hundreds of connections wait for their ClientHello, and a refusal
// once twice as many wait or are in flight (see quicMaxAwaitingHello,
// quicRefuseHandshaking) or at the connection cap (WithMaxConns, shared
// with TCP), each counted (Counters.QUICRetries, QUICRefused,
// RefusedMaxConns). Datagrams that are
// not QUIC are dropped by quic-go unseen; an Initial packet the server
// cannot decrypt is a connection attempt that fails as a timeout, as a
// TCP connection sending garbage fails its handshake, and holds its
// connection until then: hence the bound on those waiting.
//
// # Imports
//
// server owns the server side only. It may import bulk (the protocol it
// shares with the client), keys, pki, tlsconf, internal/ktls, quic-go
// and the small internal packages; never loadgen, runner, probe or
// internal/cli.
// Bad Options are *field.Error naming the field (SessionStore,
// TicketKeysFile); the command line maps them to its flags.
package server
