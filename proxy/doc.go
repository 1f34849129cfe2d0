// Package proxy is tlsbench's TLS-intercepting ("bump") proxy. A client
// asks it for a tunnel with an HTTP/1.1 CONNECT request; the proxy opens
// TLS to the origin first and verifies it, answers 200, then terminates
// the client's TLS with a certificate it mints for the name the client
// asks for (its SNI, or the CONNECT host), signed by the proxy's CA, and
// relays the bytes between the two TLS connections. A client whose SNI
// names another host than its CONNECT request is refused: the origin was
// verified for the CONNECT host only (Counters.Failures,
// FailureSNIMismatch).
//
// # Minting
//
// The proxy has one leaf key (ECDSA P-256 by default): each minted
// certificate costs one signature, no key generation. Certificates are
// kept in a bounded LRU cache; concurrent requests for one host wait for
// one mint. Counters.Mints, MintHits and MintMisses say what happened.
//
// # Relay
//
// In user space the relay reads into a buffer of Options.Buffer bytes and
// writes what it read: one read, one write, or with ReadFill as many
// reads as fill the buffer with what is immediately available. With
// kernel TLS (Options.KTLS) a leg's crypto runs in the kernel; with it on
// both legs the payload moves from socket to socket with splice(2) and
// never enters this process. Counters.Relay counts each leg's mode and
// UserSpaceBytes the payload that crossed this process.
//
// # Safety
//
// A proxy is reachable by clients it does not trust: it listens on
// loopback by default and serves other clients only from Options.Allow,
// bounds the request head (MaxHead), the time to a complete request
// (RequestTimeout, short, so that silent sockets cannot hold the MaxConns
// slots for long), the handshakes (HandshakeTimeout), idle relays
// (IdleTimeout), relays whose peer takes nothing of what waits for it
// (WriteTimeout, read from the kernel's TCP state) and the connections
// served at once (MaxConns), connects only to
// Options.ConnectPorts of Options.AllowDest (default this machine; never
// an unspecified, link-local, multicast or broadcast address, judged on
// the address a name resolves to, which is the one then dialled), writes
// a CA whose name constraints cover only those destinations, refuses
// anything but CONNECT (and a request it
// cannot read exactly: a port with a sign or leading zero, a header line
// without a colon), and logs what
// clients cause at most 10 lines a second. A relay cut short is closed
// without close_notify, so that neither peer mistakes it for a clean end.
// The CA the proxy writes signs leaves only (path length zero) and lives
// 90 days, renewed at a start near its end; minted certificates live a
// week. A CA key that group or others can reach, or a PKI directory they
// can write, is refused.
//
// # Child process
//
// Like the built-in server, the proxy can run in a child process
// (StartChild) that reports its counters, CPU time and allocations over a
// control channel only its parent holds.
//
// # Imports
//
// proxy may import keys, pki, tlsconf, internal/ktls and the small
// internal packages; never loadgen, runner, server or internal/cli. Bad
// Options are *field.Error naming the field.
package proxy
