package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"time"
)

// The bulk (throughput) protocol. After the handshake the handshake
// benchmark's client sends the single byte 'p'; a throughput client
// instead starts with BulkMagic, and the server dispatches on that first
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
	// BulkMagic is the first byte of a throughput client's setup.
	BulkMagic byte = 'T'
	// BulkVersion is the protocol version in the setup.
	BulkVersion = 1
	// MaxBulkBuffer is the largest application read/write size.
	MaxBulkBuffer = 1 << 20

	bulkSetupLen   = 16
	bulkAckLen     = 16
	bulkRoundLen   = 32
	bulkVerdictLen = 16
	maxBulkMessage = 1 << 12
)

// Setup and ack flags.
const (
	bulkFlagTX       = 1 << 0
	bulkFlagRX       = 1 << 1
	bulkFlagSendfile = 1 << 2
)

// Round directions.
const (
	// BulkDownload: the server sends.
	BulkDownload = 1 << 0
	// BulkUpload: the client sends.
	BulkUpload = 1 << 1
)

// Status codes of the ack and the verdict.
const (
	BulkOK        = 0
	BulkRefused   = 1 // setup or round not acceptable; the message says why
	BulkIntegrity = 2 // the server received other bytes than the stream
	BulkFailed    = 3 // the transfer failed (I/O error); the message says how
)

// BulkSetup is the client's first message.
type BulkSetup struct {
	// KTLSTX and KTLSRX ask the server to hand that direction of its end
	// to the kernel.
	KTLSTX, KTLSRX bool
	// Buffer is the application read/write size, 1..MaxBulkBuffer.
	Buffer int
	// Source is 0 for the generated stream, or the 1-based index of a
	// file in the server's sources (server.Options.Sources): a client can
	// only name files the server was started with.
	Source int
}

// Marshal encodes s.
func (s BulkSetup) Marshal() []byte {
	b := make([]byte, bulkSetupLen)
	b[0], b[1] = BulkMagic, BulkVersion
	if s.KTLSTX {
		b[2] |= bulkFlagTX
	}
	if s.KTLSRX {
		b[2] |= bulkFlagRX
	}
	binary.BigEndian.PutUint32(b[4:], uint32(s.Buffer))
	binary.BigEndian.PutUint16(b[8:], uint16(s.Source))
	return b
}

// ParseBulkSetup decodes a setup message.
func ParseBulkSetup(b []byte) (BulkSetup, error) {
	if len(b) != bulkSetupLen || b[0] != BulkMagic {
		return BulkSetup{}, errors.New("bulk: not a setup message")
	}
	if b[1] != BulkVersion {
		return BulkSetup{}, fmt.Errorf("bulk: protocol version %d, this server speaks %d", b[1], BulkVersion)
	}
	s := BulkSetup{
		KTLSTX: b[2]&bulkFlagTX != 0,
		KTLSRX: b[2]&bulkFlagRX != 0,
		Buffer: int(binary.BigEndian.Uint32(b[4:])),
		Source: int(binary.BigEndian.Uint16(b[8:])),
	}
	if s.Buffer < 1 || s.Buffer > MaxBulkBuffer {
		return s, fmt.Errorf("bulk: buffer of %d bytes (must be 1..%d)", s.Buffer, MaxBulkBuffer)
	}
	return s, nil
}

// BulkAck is the server's answer to the setup.
type BulkAck struct {
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
func (a BulkAck) Marshal() []byte {
	msg := truncate(a.Message)
	b := make([]byte, bulkAckLen, bulkAckLen+len(msg))
	b[0], b[1] = 'A', byte(a.Status)
	if a.KTLSTX {
		b[2] |= bulkFlagTX
	}
	if a.KTLSRX {
		b[2] |= bulkFlagRX
	}
	if a.Sendfile {
		b[2] |= bulkFlagSendfile
	}
	binary.BigEndian.PutUint16(b[4:], uint16(len(msg)))
	binary.BigEndian.PutUint64(b[8:], uint64(a.SourceSize))
	return append(b, msg...)
}

// ReadBulkAck reads an ack from r.
func ReadBulkAck(r io.Reader) (BulkAck, error) {
	var b [bulkAckLen]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return BulkAck{}, fmt.Errorf("bulk: reading the server's ack: %w", err)
	}
	if b[0] != 'A' {
		return BulkAck{}, fmt.Errorf("bulk: the server answered the setup with %q, not an ack (is it tlsbench's built-in server?)", b[0])
	}
	msg, err := readMessage(r, binary.BigEndian.Uint16(b[4:]))
	return BulkAck{
		Status:     int(b[1]),
		KTLSTX:     b[2]&bulkFlagTX != 0,
		KTLSRX:     b[2]&bulkFlagRX != 0,
		Sendfile:   b[2]&bulkFlagSendfile != 0,
		SourceSize: int64(binary.BigEndian.Uint64(b[8:])),
		Message:    msg,
	}, err
}

// BulkRound asks for one transfer.
type BulkRound struct {
	// Directions is BulkDownload, BulkUpload or both.
	Directions int
	// Bytes is what each direction moves.
	Bytes int64
	// DownloadPhase and UploadPhase are where in the generated stream
	// each direction starts (ignored for a file source, which always
	// starts at its first byte).
	DownloadPhase, UploadPhase int64
}

// Marshal encodes r.
func (r BulkRound) Marshal() []byte {
	b := make([]byte, bulkRoundLen)
	b[0], b[1] = 'R', byte(r.Directions)
	binary.BigEndian.PutUint64(b[8:], uint64(r.Bytes))
	binary.BigEndian.PutUint64(b[16:], uint64(r.DownloadPhase))
	binary.BigEndian.PutUint64(b[24:], uint64(r.UploadPhase))
	return b
}

// ParseBulkRound decodes a round message.
func ParseBulkRound(b []byte) (BulkRound, error) {
	if len(b) != bulkRoundLen || b[0] != 'R' {
		return BulkRound{}, errors.New("bulk: not a round message")
	}
	r := BulkRound{
		Directions:    int(b[1]),
		Bytes:         int64(binary.BigEndian.Uint64(b[8:])),
		DownloadPhase: int64(binary.BigEndian.Uint64(b[16:])),
		UploadPhase:   int64(binary.BigEndian.Uint64(b[24:])),
	}
	if r.Directions == 0 || r.Directions&^(BulkDownload|BulkUpload) != 0 {
		return r, fmt.Errorf("bulk: round directions %#x", r.Directions)
	}
	if r.Bytes <= 0 || r.DownloadPhase < 0 || r.UploadPhase < 0 {
		return r, fmt.Errorf("bulk: round of %d bytes at phases %d/%d", r.Bytes, r.DownloadPhase, r.UploadPhase)
	}
	return r, nil
}

// BulkVerdict is the server's report after a round.
type BulkVerdict struct {
	Status int
	// Received is what the server received (uploads; 0 otherwise).
	Received int64
	Message  string
}

// Marshal encodes v.
func (v BulkVerdict) Marshal() []byte {
	msg := truncate(v.Message)
	b := make([]byte, bulkVerdictLen, bulkVerdictLen+len(msg))
	b[0], b[1] = 'V', byte(v.Status)
	binary.BigEndian.PutUint16(b[2:], uint16(len(msg)))
	binary.BigEndian.PutUint64(b[8:], uint64(v.Received))
	return append(b, msg...)
}

// ReadBulkVerdict reads a verdict from r.
func ReadBulkVerdict(r io.Reader) (BulkVerdict, error) {
	var b [bulkVerdictLen]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return BulkVerdict{}, fmt.Errorf("bulk: reading the server's verdict: %w", err)
	}
	if b[0] != 'V' {
		return BulkVerdict{}, fmt.Errorf("bulk: expected the server's verdict, got %q: the stream is out of step", b[0])
	}
	msg, err := readMessage(r, binary.BigEndian.Uint16(b[2:]))
	return BulkVerdict{Status: int(b[1]), Received: int64(binary.BigEndian.Uint64(b[8:])), Message: msg}, err
}

func truncate(s string) string {
	if len(s) > maxBulkMessage {
		return s[:maxBulkMessage]
	}
	return s
}

func readMessage(r io.Reader, n uint16) (string, error) {
	if n == 0 {
		return "", nil
	}
	if n > maxBulkMessage {
		return "", fmt.Errorf("bulk: message of %d bytes", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("bulk: reading a message: %w", err)
	}
	return string(b), nil
}

// The generated stream is a fixed pseudo-random block of PatternPeriod
// bytes repeated without end; a connection's transfer starts at a phase
// (an offset into it) of the client's choosing. Sending it costs nothing
// (writes are slices of one read-only buffer) and checking it is a memory
// comparison, several times faster than SHA-256 and than any AEAD, so the
// check does not dominate what is measured; it is also exact: a mismatch
// names the first wrong byte. The period is odd, so no power-of-two
// record or buffer size divides it, and larger than any buffer: a chunk
// delivered at the wrong place (reordered, repeated, dropped, or another
// connection's, which starts at another phase) compares unequal unless it
// moved by a multiple of the period; the byte count catches drops and
// repeats of whole periods.
const PatternPeriod = 1<<20 + 4093

// pattern is the period followed by its first MaxBulkBuffer bytes again,
// so that any chunk up to MaxBulkBuffer bytes is one contiguous slice.
var pattern = sync.OnceValue(func() []byte {
	b := make([]byte, PatternPeriod+MaxBulkBuffer)
	rand.NewChaCha8([32]byte{'t', 'l', 's', 'b', 'e', 'n', 'c', 'h'}).Read(b[:PatternPeriod])
	copy(b[PatternPeriod:], b[:MaxBulkBuffer])
	return b
})

// PatternAt returns n (<= MaxBulkBuffer) bytes of the generated stream
// from position pos. The slice is shared and must not be modified.
func PatternAt(pos int64, n int) []byte {
	o := pos % PatternPeriod
	return pattern()[o : o+int64(n)]
}

// IntegrityError says that a receiver got other bytes than were sent.
type IntegrityError struct {
	// Offset is the position of the first wrong byte (or of the end of
	// the wrong pass, for a hashed file) from the start of the transfer.
	Offset int64
	Got    byte
	Want   byte
	// Detail replaces the byte comparison when the check is by hash.
	Detail string
	// Remote, when set, is the report of the server, which received the
	// data (an upload), and replaces the other fields.
	Remote string
}

func (e *IntegrityError) Error() string {
	if e.Remote != "" {
		return "the server, receiving, reports: " + e.Remote
	}
	if e.Detail != "" {
		return fmt.Sprintf("data integrity check FAILED at byte %d: %s", e.Offset, e.Detail)
	}
	return fmt.Sprintf("data integrity check FAILED: byte %d of the stream is %#02x, want %#02x (data corrupted, reordered or out of step)", e.Offset, e.Got, e.Want)
}

// Verifier checks a received stream chunk by chunk.
type Verifier interface {
	// Check verifies the next bytes of the stream.
	Check(p []byte) error
	// Done verifies that the stream ended where it should, after n bytes.
	Done(n int64) error
}

// periodic checks against content repeated without end, from phase.
type periodic struct {
	content []byte
	pos     int64 // position in the repeated content
	start   int64
}

// NewPatternVerifier checks the generated stream from phase.
func NewPatternVerifier(phase int64) Verifier {
	p := phase % PatternPeriod
	return &periodic{content: pattern()[:PatternPeriod], pos: p, start: p}
}

// NewContentVerifier checks a file source whose contents the receiver
// holds: the file repeated, from its first byte.
func NewContentVerifier(content []byte) Verifier { return &periodic{content: content} }

func (v *periodic) Check(p []byte) error {
	l := int64(len(v.content))
	for len(p) > 0 {
		o := v.pos % l
		n := min(int64(len(p)), l-o)
		want := v.content[o : o+n]
		if !bytes.Equal(p[:n], want) {
			for i := range n {
				if p[i] != want[i] {
					return &IntegrityError{Offset: v.pos - v.start + i, Got: p[i], Want: want[i]}
				}
			}
		}
		p = p[n:]
		v.pos += n
	}
	return nil
}

func (v *periodic) Done(n int64) error {
	if got := v.pos - v.start; got != n {
		return fmt.Errorf("bulk: stream ended after %d bytes, want %d", got, n)
	}
	return nil
}

// passHash checks a file source too large to hold by the SHA-256 of each
// whole pass over it.
type passHash struct {
	size   int64
	sum    [sha256.Size]byte
	h      hash.Hash
	inPass int64
	total  int64
}

// NewPassHashVerifier checks a file source of size bytes, sent whole
// (once or more), by the SHA-256 of every pass: for files too large to
// keep in memory. A wrong pass is reported when it ends.
func NewPassHashVerifier(size int64, sum [sha256.Size]byte) Verifier {
	return &passHash{size: size, sum: sum, h: sha256.New()}
}

func (v *passHash) Check(p []byte) error {
	for len(p) > 0 {
		n := min(int64(len(p)), v.size-v.inPass)
		v.h.Write(p[:n])
		p = p[n:]
		v.inPass += n
		v.total += n
		if v.inPass == v.size {
			var got [sha256.Size]byte
			v.h.Sum(got[:0])
			if got != v.sum {
				return &IntegrityError{Offset: v.total, Detail: fmt.Sprintf("the SHA-256 of the file pass ending here is %x, want %x", got[:8], v.sum[:8])}
			}
			v.h.Reset()
			v.inPass = 0
		}
	}
	return nil
}

func (v *passHash) Done(n int64) error {
	if v.total != n || v.inPass != 0 {
		return fmt.Errorf("bulk: stream ended after %d bytes, want %d whole passes of %d", v.total, n, v.size)
	}
	return nil
}

// StallGuard keeps a deadline on a connection that moves forward while
// data moves: a transfer may take any time, but no single read or write
// may stall for longer than the timeout. Tick is cheap enough to call per
// chunk (it looks at the clock every 16 calls). Once Ctx is done it stops
// extending and expires the deadline, so that a cancelled run does not
// wait for the transfer to end.
type StallGuard struct {
	Conn    net.Conn
	Timeout time.Duration
	Ctx     context.Context // optional
	calls   int
	next    time.Time
}

// Tick extends the deadline when it is due.
func (g *StallGuard) Tick() {
	if g == nil || g.Timeout <= 0 {
		return
	}
	g.calls++
	if g.calls&15 != 1 {
		return
	}
	if g.Ctx != nil && g.Ctx.Err() != nil {
		g.Conn.SetDeadline(time.Now())
		return
	}
	if now := time.Now(); now.After(g.next) {
		g.Conn.SetDeadline(now.Add(g.Timeout))
		g.next = now.Add(g.Timeout / 4)
	}
}

// SendPattern writes n bytes of the generated stream from phase, in
// writes of buf bytes.
func SendPattern(w io.Writer, n, phase int64, buf int, g *StallGuard) error {
	for sent := int64(0); sent < n; {
		m := int(min(int64(buf), n-sent))
		if _, err := w.Write(PatternAt(phase+sent, m)); err != nil {
			return fmt.Errorf("bulk: write after %d of %d bytes: %w", sent, n, err)
		}
		sent += int64(m)
		g.Tick()
	}
	return nil
}

// Receive reads exactly n bytes from r in reads of at most len(buf)
// bytes and checks them with v. It returns the bytes received; after an
// integrity error it goes on reading (drain) to the end without checking,
// when drain is set, so that the peer's writes complete and the verdict
// can still be exchanged.
func Receive(r io.Reader, n int64, buf []byte, v Verifier, drain bool, g *StallGuard) (int64, error) {
	var got int64
	var bad error
	for got < n {
		m := min(int64(len(buf)), n-got)
		k, err := r.Read(buf[:m])
		if k > 0 {
			if bad == nil {
				if bad = v.Check(buf[:k]); bad != nil && !drain {
					return got, bad
				}
			}
			got += int64(k)
			g.Tick()
		}
		if err != nil && got < n {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return got, fmt.Errorf("bulk: read after %d of %d bytes: %w", got, n, err)
		}
	}
	if bad != nil {
		return got, bad
	}
	return got, v.Done(n)
}
