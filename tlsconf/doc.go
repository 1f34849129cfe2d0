// Package tlsconf turns tlsbench's options into *tls.Config values for the
// client and the server: protocol versions, key-exchange groups, client
// certificates, and the client session cache.
//
// The client session cache is the part that decides whether a resumption
// benchmark measures what it claims. Go's own LRU cache keeps one session
// per server name, so every concurrent handshake of a wave offers the same
// ticket, and a client that switches certificate resumes a session made
// under another identity. SessionPool keeps several sessions per scope and
// scopes them by client identity, so that a session established as
// identity A is never offered while presenting identity B.
//
// tlsconf owns the mapping from option values to crypto/tls settings and
// their names (versions, groups, cipher suites). It may import
// internal/ktls and the small internal packages; never server, loadgen,
// runner, keys or internal/cli, which all build on it.
package tlsconf
