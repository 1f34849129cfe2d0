package keys

import (
	"errors"
	"fmt"
)

// How finely a client may fragment its ClientHello. Go's crypto/tls,
// OpenSSL, BoringSSL, NSS and GnuTLS send a ClientHello of up to 16 KiB
// (a post-quantum one is 1.2-2 KiB) in one record, and a larger one in
// full 16 KiB records; OpenSSL clients configured to send smaller records
// still send at least 512 bytes per record (its smallest
// max_send_fragment), and tools that split the ClientHello to get past
// middleboxes split it into two records, or into records of about 100
// bytes. A client that sends it byte by byte makes the server do per
// record work (crypto/tls's and the recorder's) for every byte. So the
// first helloFreeRecords records are always accepted, and every record
// after them (a warning alert crypto/tls drops as well) must be paid for
// by helloBytesPerRecord bytes of ClientHello received before it: 64 bytes is the smallest record a TLS endpoint may
// ask its peer for (RFC 8449, record_size_limit). A 2 KiB ClientHello may
// then come in up to 35 records, a 64 KiB one in about 1000, and one sent
// in 1-byte records is refused at its fifth record.
const (
	helloFreeRecords    = 4
	helloBytesPerRecord = 64
)

// ErrFragmentedHello is the error a connection wrapped by
// RecordClientHello returns from Read, and so crypto/tls from the
// handshake, when the ClientHello is spread over more, smaller records
// than real clients send (see helloFreeRecords). The handshake is then
// over: the bytes read are not handed on.
var ErrFragmentedHello = errors.New("ClientHello refused: spread over too many small records")

// errIncomplete says that the records seen so far end before the
// ClientHello does.
var errIncomplete = errors.New("ClientHello incomplete")

// helloAssembler reassembles the first handshake message from a stream
// of TLS records as a server reads it from the socket, in the pieces it
// is read in: it may span several records (RFC 8446 section 5.1), and
// bytes after it are ignored. Each byte fed is looked at once, and copied
// at most once into the message (plus the copies of growing it, at most
// as many bytes again), so that the work is linear in the bytes read
// however the stream is cut into records and reads.
type helloAssembler struct {
	hdr     [recordHeaderLen]byte // the record header being read
	nhdr    int                   // bytes of hdr read; 0 between records
	left    int                   // payload bytes of the current record to come
	skip    bool                  // the current record is an alert, not part of the message
	records int                   // records begun, alerts included
	payload int                   // handshake records' payload bytes read so far

	hs  [4]byte // the handshake header: type and 24-bit length
	nhs int     // bytes of hs read
	end int     // the message's length, header included, once nhs is 4
	msg []byte  // the message so far, once nhs is 4

	work int // bytes looked at or copied, for the tests' linear bound
}

// feed consumes the next bytes of the stream. It returns the ClientHello
// message once it is complete, errIncomplete while it is not, and another
// error when the stream is not a TLS handshake, the first message is not
// a ClientHello of at most maxClientHello bytes, or its records are too
// small (ErrFragmentedHello). Once it has returned anything but
// errIncomplete it must not be fed again.
func (a *helloAssembler) feed(b []byte) ([]byte, error) {
	for len(b) > 0 {
		if a.left == 0 { // between records, or in a record header
			c := copy(a.hdr[a.nhdr:], b)
			a.nhdr += c
			a.work += c
			b = b[c:]
			if a.nhdr < recordHeaderLen {
				break
			}
			a.nhdr = 0
			if err := a.beginRecord(); err != nil {
				return nil, err
			}
			continue
		}
		c := min(len(b), a.left)
		a.left -= c
		a.work += c
		if !a.skip {
			a.payload += c
			if msg, err := a.take(b[:c]); err != errIncomplete {
				return msg, err
			}
		}
		b = b[c:]
	}
	return nil, errIncomplete
}

// beginRecord checks the record header just read. It lets through what
// crypto/tls's server accepts before the ClientHello, so that a stream it
// goes on to handshake with is also watched here to its end: any record
// version below 16.0, and alert records, which crypto/tls drops when they
// are warnings (16 in a row, the count starting again after each handshake
// record). An alert counts among the records but brings no ClientHello
// bytes, and its payload is skipped; the other alerts end the handshake
// in crypto/tls. What crypto/tls refuses outright (another record type, a
// later version, an oversized record) ends the watching here too.
func (a *helloAssembler) beginRecord() error {
	typ, length := a.hdr[0], int(a.hdr[3])<<8|int(a.hdr[4])
	if typ != recordTypeHandshake && typ != recordTypeAlert {
		return fmt.Errorf("record type %d where a handshake record (22) carrying the ClientHello was expected", typ)
	}
	if a.hdr[1] >= 0x10 {
		return fmt.Errorf("record version %d.%d is not TLS", a.hdr[1], a.hdr[2])
	}
	if length > maxPlaintextRecord {
		return fmt.Errorf("record of %d bytes exceeds the %d-byte limit", length, maxPlaintextRecord)
	}
	a.records++
	if a.records > helloFreeRecords+a.payload/helloBytesPerRecord {
		return fmt.Errorf("%w: record %d began after only %d bytes of it; beyond %d records, each needs %d bytes before it",
			ErrFragmentedHello, a.records, a.payload, helloFreeRecords, helloBytesPerRecord)
	}
	a.left = length
	a.skip = typ == recordTypeAlert
	return nil
}

// take adds payload bytes of a handshake record to the message.
func (a *helloAssembler) take(frag []byte) ([]byte, error) {
	if a.nhs < len(a.hs) {
		c := copy(a.hs[a.nhs:], frag)
		a.nhs += c
		frag = frag[c:]
		if a.nhs < len(a.hs) {
			return nil, errIncomplete
		}
		if err := a.beginMessage(); err != nil {
			return nil, err
		}
	}
	frag = frag[:min(len(frag), a.end-len(a.msg))]
	if len(a.msg)+len(frag) > cap(a.msg) {
		// Grow by doubling, to the message's length at most: the bytes
		// copied stay under twice the message's.
		grown := make([]byte, len(a.msg), min(a.end, max(2*cap(a.msg), len(a.msg)+len(frag))))
		a.work += copy(grown, a.msg)
		a.msg = grown
	}
	a.msg = append(a.msg, frag...)
	a.work += len(frag)
	if len(a.msg) < a.end {
		return nil, errIncomplete
	}
	return a.msg, nil
}

// beginMessage checks the handshake header just read and starts the
// message. It allocates the message's length up to one full record
// (crypto/tls itself grows its buffer to the length a record header
// announces), so that a ClientHello in one record is copied once into a
// buffer of its size, and a longer one grows only as its bytes arrive.
func (a *helloAssembler) beginMessage() error {
	if a.hs[0] != handshakeClientHello {
		return fmt.Errorf("first handshake message has type %d, not ClientHello (1)", a.hs[0])
	}
	a.end = len(a.hs) + (int(a.hs[1])<<16 | int(a.hs[2])<<8 | int(a.hs[3]))
	if a.end > maxClientHello {
		return fmt.Errorf("ClientHello of %d bytes exceeds the %d-byte limit", a.end, maxClientHello)
	}
	a.msg = append(make([]byte, 0, min(a.end, maxPlaintextRecord)), a.hs[:]...)
	return nil
}
