package loadgen

import (
	"crypto/tls"
	"time"
)

// connResult is the outcome of one connection.
type connResult struct {
	client  int // index into Clients
	ok      bool
	stage   string // where a failed connection failed: connect, handshake, exchange
	resumed bool
	group   tls.CurveID
	cipher  uint16
	// latency is what the case's latency histogram records: the
	// client's handshake (from the dial with LatencyFromDial).
	latency time.Duration
	// The connection's phases (see phaseConn), set when phases is:
	// connect is the dial (negative over QUIC, which has none),
	// handshake from the first byte written to the end of the client's
	// handshake, firstByte from there to the first byte read after it
	// (negative when nothing was read), firstResponse from the dial to
	// the first byte of the answer to the request (negative when none
	// was read).
	phases                                       bool
	connect, handshake, firstByte, firstResponse time.Duration
	// exchange is from the end of the handshake to the end of the
	// exchange after it (negative when not measured), and hsEnd when
	// the handshake ended: a wave's handshakes end with its last one
	// (see waveHandshakes).
	exchange time.Duration
	hsEnd    time.Time
	// quicVersion names the QUIC version of a QUIC connection ("" over
	// TCP), early what became of its early data, and earlyLate that
	// early data was accepted but the request went after the handshake
	// (see quicConn.result).
	quicVersion string
	early       earlyOutcome
	earlyLate   bool
	// work is the CPU time the connection's own goroutine measured from
	// its handshake's start to its end (in a mix: see partCPU);
	// workLost that part of it could not be measured.
	work     time.Duration
	workLost bool

	errKind string
	err     error
}

const (
	earlyNone     earlyOutcome = iota // not offered
	earlyAccepted                     // offered and accepted: a 0-RTT handshake
	earlyRejected                     // offered and rejected: the request was sent again
)

// earlyOutcome is what became of a QUIC connection's early data.
type earlyOutcome uint8
