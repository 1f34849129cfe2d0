package client

import (
	"crypto/tls"
	"time"
)

// Sample is the outcome of one connection.
type Sample struct {
	Client  int // index into Clients
	OK      bool
	Stage   string // where a failed connection failed: connect, handshake, exchange
	Resumed bool
	Group   tls.CurveID
	Cipher  uint16
	// Latency is what the case's latency histogram records: the
	// client's handshake (from the dial with LatencyFromDial).
	Latency time.Duration
	// The connection's phases (see phaseConn), set when phases is:
	// connect is the dial (negative over QUIC, which has none),
	// handshake from the first byte written to the end of the client's
	// handshake, firstByte from there to the first byte read after it
	// (negative when nothing was read), firstResponse from the dial to
	// the first byte of the answer to the request (negative when none
	// was read).
	Phases                                       bool
	Connect, Handshake, FirstByte, FirstResponse time.Duration
	// Exchange is from the end of the handshake to the end of the
	// exchange after it (negative when not measured), and hsEnd when
	// the handshake ended: a wave's handshakes end with its last one
	// (see waveHandshakes).
	Exchange time.Duration
	HSEnd    time.Time
	// QUICVersion names the QUIC version of a QUIC connection ("" over
	// TCP), early what became of its early data, and earlyLate that
	// early data was accepted but the request went after the handshake
	// (see quicConn.result).
	QUICVersion string
	Early       EarlyOutcome
	EarlyLate   bool
	// Work is the CPU time the connection's own goroutine measured from
	// its handshake's start to its end (in a mix: see partCPU);
	// workLost that part of it could not be measured.
	Work     time.Duration
	WorkLost bool

	ErrKind string
	Err     error
}

const (
	EarlyNone     EarlyOutcome = iota // not offered
	EarlyAccepted                     // offered and accepted: a 0-RTT handshake
	EarlyRejected                     // offered and rejected: the request was sent again
)

// EarlyOutcome is what became of a QUIC connection's early data.
type EarlyOutcome uint8
