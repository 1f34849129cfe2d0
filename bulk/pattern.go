package bulk

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"hash"
	"math/rand/v2"
	"sync"
)

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

// pattern is the period followed by its first MaxBuffer bytes again,
// so that any chunk up to MaxBuffer bytes is one contiguous slice.
var pattern = sync.OnceValue(func() []byte {
	b := make([]byte, PatternPeriod+MaxBuffer)
	rand.NewChaCha8([32]byte{'t', 'l', 's', 'b', 'e', 'n', 'c', 'h'}).Read(b[:PatternPeriod])
	copy(b[PatternPeriod:], b[:MaxBuffer])
	return b
})

// PatternAt returns n (<= MaxBuffer) bytes of the generated stream
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
