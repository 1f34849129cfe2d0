package bulk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The bulk (throughput) protocol. After the handshake the handshake
// benchmark's client sends the single byte 'p'; a throughput client
// instead starts with Magic, and the server dispatches on that first
// byte. All integers are big-endian.
//
//	client -> server  setup   16 bytes: 'T', version 1, flags (kTLS TX, RX wanted),
//	                          0, buffer u32, source u16, 6 zero bytes
//	server -> client  ack     16 bytes: 'A', status, flags in effect (TX, RX,
//	                          sendfile), 0, message length u16, 2 zero bytes,
//	                          source size u64; then the message (the kTLS
//	                          fallback reason or why the setup was refused)
//	then, per round:
//	client -> server  round   32 bytes: 'R', directions (1 server sends,
//	                          2 client sends), 6 zero bytes, bytes u64 (per
//	                          direction), download phase u64, upload phase u64
//	                  data    both ways at once when both directions are set
//	server -> client  verdict 16 bytes: 'V', status, message length u16,
//	                          4 zero bytes, bytes received u64; then the message
//
// The client ends the connection between rounds with close_notify.
//
// Rounds carry their length instead of ending with close_notify so that
// the server can report what it received (the verdict of an upload) after
// the data, and so that one connection, its handshake and its kTLS switch
// serve every iteration of a case. The server switches to kTLS after
// reading the setup and before writing the ack; the client reads the ack
// in user space (and with it a TLS 1.3 NewSessionTicket) and switches
// after it, so that neither crypto/tls holds undelivered bytes at the
// switch (see internal/ktls).
const (
	// Magic is the first byte of a throughput client's setup.
	Magic byte = 'T'
	// Version is the protocol version in the setup.
	Version = 1
	// MaxBuffer is the largest application read/write size.
	MaxBuffer = 1 << 20

	// SetupLen and RoundLen are the sizes of the client's messages, which
	// the server reads whole before parsing them.
	SetupLen = 16
	RoundLen = 32

	ackLen     = 16
	verdictLen = 16
	maxMessage = 1 << 12
)

// Setup and ack flags.
const (
	flagTX       = 1 << 0
	flagRX       = 1 << 1
	flagSendfile = 1 << 2
)

// Round directions.
const (
	// Download: the server sends.
	Download = 1 << 0
	// Upload: the client sends.
	Upload = 1 << 1
)

// Status codes of the ack and the verdict.
const (
	OK        = 0
	Refused   = 1 // setup or round not acceptable; the message says why
	Integrity = 2 // the server received other bytes than the stream
	Failed    = 3 // the transfer failed (I/O error); the message says how
)

// Setup is the client's first message.
type Setup struct {
	// KTLSTX and KTLSRX ask the server to hand that direction of its end
	// to the kernel.
	KTLSTX, KTLSRX bool
	// Buffer is the application read/write size, 1..MaxBuffer.
	Buffer int
	// Source is 0 for the generated stream, or the 1-based index of a
	// file in the server's sources (the files it was started with): a client can
	// only name files the server was started with.
	Source int
}

// Marshal encodes s.
func (s Setup) Marshal() []byte {
	b := make([]byte, SetupLen)
	b[0], b[1] = Magic, Version
	if s.KTLSTX {
		b[2] |= flagTX
	}
	if s.KTLSRX {
		b[2] |= flagRX
	}
	binary.BigEndian.PutUint32(b[4:], uint32(s.Buffer))
	binary.BigEndian.PutUint16(b[8:], uint16(s.Source))
	return b
}

// ParseSetup decodes a setup message.
func ParseSetup(b []byte) (Setup, error) {
	if len(b) != SetupLen || b[0] != Magic {
		return Setup{}, errors.New("bulk: not a setup message")
	}
	if b[1] != Version {
		return Setup{}, fmt.Errorf("bulk: protocol version %d, this server speaks %d", b[1], Version)
	}
	s := Setup{
		KTLSTX: b[2]&flagTX != 0,
		KTLSRX: b[2]&flagRX != 0,
		Buffer: int(binary.BigEndian.Uint32(b[4:])),
		Source: int(binary.BigEndian.Uint16(b[8:])),
	}
	if s.Buffer < 1 || s.Buffer > MaxBuffer {
		return s, fmt.Errorf("bulk: buffer of %d bytes (must be 1..%d)", s.Buffer, MaxBuffer)
	}
	return s, nil
}

// Ack is the server's answer to the setup.
type Ack struct {
	Status int
	// KTLSTX and KTLSRX say what the server's end actually handed to the
	// kernel; Sendfile that a file source is sent with sendfile(2).
	KTLSTX, KTLSRX, Sendfile bool
	// SourceSize is the size of the file source (0 for the stream).
	SourceSize int64
	// Message is the reason for a refusal or for staying in user space.
	Message string
}

// Marshal encodes a.
func (a Ack) Marshal() []byte {
	msg := truncate(a.Message)
	b := make([]byte, ackLen, ackLen+len(msg))
	b[0], b[1] = 'A', byte(a.Status)
	if a.KTLSTX {
		b[2] |= flagTX
	}
	if a.KTLSRX {
		b[2] |= flagRX
	}
	if a.Sendfile {
		b[2] |= flagSendfile
	}
	binary.BigEndian.PutUint16(b[4:], uint16(len(msg)))
	binary.BigEndian.PutUint64(b[8:], uint64(a.SourceSize))
	return append(b, msg...)
}

// ReadAck reads an ack from r.
func ReadAck(r io.Reader) (Ack, error) {
	var b [ackLen]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return Ack{}, fmt.Errorf("bulk: reading the server's ack: %w", err)
	}
	if b[0] != 'A' {
		return Ack{}, fmt.Errorf("bulk: the server answered the setup with %q, not an ack (is it tlsbench's built-in server?)", b[0])
	}
	msg, err := readMessage(r, binary.BigEndian.Uint16(b[4:]))
	return Ack{
		Status:     int(b[1]),
		KTLSTX:     b[2]&flagTX != 0,
		KTLSRX:     b[2]&flagRX != 0,
		Sendfile:   b[2]&flagSendfile != 0,
		SourceSize: int64(binary.BigEndian.Uint64(b[8:])),
		Message:    msg,
	}, err
}

// Round asks for one transfer.
type Round struct {
	// Directions is Download, Upload or both.
	Directions int
	// Bytes is what each direction moves.
	Bytes int64
	// DownloadPhase and UploadPhase are where in the generated stream
	// each direction starts (ignored for a file source, which always
	// starts at its first byte).
	DownloadPhase, UploadPhase int64
}

// Marshal encodes r.
func (r Round) Marshal() []byte {
	b := make([]byte, RoundLen)
	b[0], b[1] = 'R', byte(r.Directions)
	binary.BigEndian.PutUint64(b[8:], uint64(r.Bytes))
	binary.BigEndian.PutUint64(b[16:], uint64(r.DownloadPhase))
	binary.BigEndian.PutUint64(b[24:], uint64(r.UploadPhase))
	return b
}

// ParseRound decodes a round message.
func ParseRound(b []byte) (Round, error) {
	if len(b) != RoundLen || b[0] != 'R' {
		return Round{}, errors.New("bulk: not a round message")
	}
	r := Round{
		Directions:    int(b[1]),
		Bytes:         int64(binary.BigEndian.Uint64(b[8:])),
		DownloadPhase: int64(binary.BigEndian.Uint64(b[16:])),
		UploadPhase:   int64(binary.BigEndian.Uint64(b[24:])),
	}
	if r.Directions == 0 || r.Directions&^(Download|Upload) != 0 {
		return r, fmt.Errorf("bulk: round directions %#x", r.Directions)
	}
	if r.Bytes <= 0 || r.DownloadPhase < 0 || r.UploadPhase < 0 {
		return r, fmt.Errorf("bulk: round of %d bytes at phases %d/%d", r.Bytes, r.DownloadPhase, r.UploadPhase)
	}
	return r, nil
}

// Verdict is the server's report after a round.
type Verdict struct {
	Status int
	// Received is what the server received (uploads; 0 otherwise).
	Received int64
	Message  string
}

// Marshal encodes v.
func (v Verdict) Marshal() []byte {
	msg := truncate(v.Message)
	b := make([]byte, verdictLen, verdictLen+len(msg))
	b[0], b[1] = 'V', byte(v.Status)
	binary.BigEndian.PutUint16(b[2:], uint16(len(msg)))
	binary.BigEndian.PutUint64(b[8:], uint64(v.Received))
	return append(b, msg...)
}

// ReadVerdict reads a verdict from r.
func ReadVerdict(r io.Reader) (Verdict, error) {
	var b [verdictLen]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return Verdict{}, fmt.Errorf("bulk: reading the server's verdict: %w", err)
	}
	if b[0] != 'V' {
		return Verdict{}, fmt.Errorf("bulk: expected the server's verdict, got %q: the stream is out of step", b[0])
	}
	msg, err := readMessage(r, binary.BigEndian.Uint16(b[2:]))
	return Verdict{Status: int(b[1]), Received: int64(binary.BigEndian.Uint64(b[8:])), Message: msg}, err
}

func truncate(s string) string {
	if len(s) > maxMessage {
		return s[:maxMessage]
	}
	return s
}

func readMessage(r io.Reader, n uint16) (string, error) {
	if n == 0 {
		return "", nil
	}
	if n > maxMessage {
		return "", fmt.Errorf("bulk: message of %d bytes", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("bulk: reading a message: %w", err)
	}
	return string(b), nil
}
