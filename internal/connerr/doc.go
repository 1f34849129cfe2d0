// Package connerr sorts connection and handshake failures into the few
// kinds a benchmark reports: timeout, refused, reset, eof, alert:<name>,
// verify, canceled and other. Client and server use the same kinds, so
// their counts can be compared.
//
// It imports nothing of tlsbench.
package connerr
