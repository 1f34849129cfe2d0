// Package sessionidcheck makes the connections of the probe's checks of
// TLS 1.2 resumption by session ID (RFC 5246 abbreviated handshake),
// with client/sessionid: Learn runs the full handshake that offers no
// ticket and keeps its session; Resume offers it on a connection of its
// own and sends the probe's request over the resumed connection (with
// client's requests, which take any client.Conn); Simultaneous offers it on many connections at once, one
// round, and counts which resumed, which got a new session and which
// failed. The probe turns the outcomes into findings.
//
// It imports client (the requests) and client/sessionid; never probe.
package sessionidcheck
