// Package measure is a handshake case's measurement: the case itself
// (HandshakeCase, its defaults and validation), the boundaries of its
// iterations, the observers read at them, the gates its figures must
// pass, and the summary and record built from the kept iterations. It is
// the only writer of a handshake record's metrics.
//
// An iteration is run by a schedule (package loadgen) through
// Measurer.Iterate, and counted connection by connection (Tally, from
// the client.Sample each connection ends with). At its boundaries the
// Meter snapshots the client's and the peers' CPU (from the OS), the
// server's and the proxy's own counters (ServerObserver, ProxyObserver)
// and, when asked, the machine's listen-queue drops; an iteration that
// fails or is cut short is dropped with its span, so that the figures
// cover exactly the iterations kept.
//
// Gates: resumption is checked on every handshake, from the client's
// DidResume and, when the server can be asked, from its own count, in
// the warm-up and every measured iteration (ResumptionError); failures
// against the maximum error rate (ErrorRateError), a mix's resumed share
// (MixError), an open-loop schedule not held (RateError), identities and
// early data. A record that fails a gate is still written, marked failed.
//
// The headline is the handshake: an iteration's first figure is the time
// its waves took up to their last successful handshake, per handshake,
// with the wall time per connection beside it, and notes name an
// exchange, or a Nagle and delayed-ACK stall, that sets the connection
// rate (headline.go). Every measured connection's phases go into HDR
// histograms over the kept iterations (phases.go).
//
// measure knows no command line: settings are named by their fields, in
// *field.Error, or in the caller's client.Words. It may import client,
// stats, results, tlsconf (the names of versions, groups and ciphers)
// and the small utilities.
package measure
