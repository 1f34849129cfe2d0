package keys

import (
	"errors"
	"fmt"
)

// How finely a client may fragment its handshake. Go's crypto/tls,
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
// by helloBytesPerRecord bytes of handshake received before it: 64 bytes
// is the smallest record a TLS endpoint may ask its peer for (RFC 8449,
// record_size_limit). A 2 KiB ClientHello may then come in up to 35
// records, a 64 KiB one in about 1000, and one sent in 1-byte records is
// refused at its fifth record.
//
// The budget covers all the client's plaintext records, not only the
// first ClientHello's: crypto/tls reads a first handshake message of any
// type (up to 64 KiB) before it looks at the type, a second ClientHello
// after a HelloRetryRequest, and a TLS 1.2 client's second flight
// (Certificate, ClientKeyExchange, CertificateVerify), all without
// decrypting. It ends at the first application_data record: TLS 1.3
// encrypts all the client sends after its ClientHello as such records,
// and a TLS 1.2 client sends them once its Finished is out; crypto/tls
// authenticates each of them. A change_cipher_spec record counts like an
// alert: TLS 1.3 clients send one before their second ClientHello, and
// crypto/tls drops it.
const (
	helloFreeRecords    = 4
	helloBytesPerRecord = 64
)

// ErrFragmentedHello is the error a connection wrapped by
// RecordClientHello returns from Read, and so crypto/tls from the
// handshake, when the client's handshake records (the ClientHello, a
// second one after a HelloRetryRequest, TLS 1.2's second flight) are
// more and smaller than real clients send (see helloFreeRecords). The
// handshake is then over: the bytes read are not handed on.
var ErrFragmentedHello = errors.New("ClientHello refused: spread over too many small records")

// errIncomplete says that the records seen so far end before the
// ClientHello does.
var errIncomplete = errors.New("ClientHello incomplete")

// errUnwatched says that the client's plaintext records are over (an
// application_data record came, or a record crypto/tls refuses): the
// rest of the stream is passed on unread.
var errUnwatched = errors.New("plaintext handshake records over")

// helloAssembler follows the client's records as a server reads them
// from the socket, in the pieces they are read in, keeping the record
// budget (helloFreeRecords) until they are encrypted, and reassembles the
// first handshake message, the ClientHello, on the way: it may span
// several records (RFC 8446 section 5.1), and bytes after it are only
// counted. Each byte fed is looked at once, and copied at most once into
// the message (plus the copies of growing it, at most as many bytes
// again), so that the work is linear in the bytes read however the stream
// is cut into records and reads; after the ClientHello it reads only the
// records' headers.
type helloAssembler struct {
	hdr     [recordHeaderLen]byte // the record header being read
	nhdr    int                   // bytes of hdr read; 0 between records
	left    int                   // payload bytes of the current record to come
	skip    bool                  // the current record brings no handshake bytes: an alert or change_cipher_spec
	records int                   // records begun, alerts included
	payload int                   // handshake records' payload bytes read so far

	hs  [4]byte // the handshake header: type and 24-bit length
	nhs int     // bytes of hs read
	end int     // the message's length, header included, once nhs is 4
	msg []byte  // the message so far, once nhs is 4

	// The outcome for the first message, once known: the ClientHello, or
	// why there is none (it is not one, or the records are not TLS).
	hello    []byte
	helloErr error

	work int // bytes looked at or copied, for the tests' linear bound
}

// known says whether the first message's outcome is known.
func (a *helloAssembler) known() bool { return a.hello != nil || a.helloErr != nil }

// feed consumes the next bytes of the stream. It returns nil while the
// client's plaintext records go on, errUnwatched once they are over, and
// an error wrapping ErrFragmentedHello when a record is refused; once it
// has returned anything but nil it must not be fed again. The first
// message's outcome (hello, helloErr) is set as soon as it is known.
func (a *helloAssembler) feed(b []byte) error {
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
				if !errors.Is(err, ErrFragmentedHello) && !a.known() {
					a.helloErr = err
				}
				if err != errUnwatched && !errors.Is(err, ErrFragmentedHello) {
					err = errUnwatched
				}
				return err
			}
			continue
		}
		c := min(len(b), a.left)
		a.left -= c
		a.work += c
		if !a.skip {
			a.payload += c
			if !a.known() {
				a.take(b[:c])
			}
		}
		b = b[c:]
	}
	return nil
}

// result is the first message's outcome after feed returned err: the
// ClientHello, or why there is none (errIncomplete while it is not known).
func (a *helloAssembler) result(err error) ([]byte, error) {
	switch {
	case a.known():
		return a.hello, a.helloErr
	case errors.Is(err, ErrFragmentedHello):
		return nil, err
	}
	return nil, errIncomplete
}

// beginRecord checks the record header just read. It lets through what
// crypto/tls's server accepts from a client in plaintext, so that a
// stream it goes on to handshake with is also watched here: before the
// first message is known any record version below 16.0 and only
// handshake and alert records (crypto/tls drops warning alerts, 16 in a
// row, the count starting again after each handshake record); after it
// change_cipher_spec records too. An alert or change_cipher_spec counts
// among the records but brings no handshake bytes, and its payload is
// skipped. An application_data record ends the watching (errUnwatched);
// so does what crypto/tls refuses outright (another record type, a later
// version, an oversized record), with an error saying why.
func (a *helloAssembler) beginRecord() error {
	typ, length := a.hdr[0], int(a.hdr[3])<<8|int(a.hdr[4])
	switch {
	case a.known() && typ == recordTypeApplicationData:
		return errUnwatched
	case typ == recordTypeChangeCipherSpec && a.known():
	case typ != recordTypeHandshake && typ != recordTypeAlert:
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
	a.skip = typ != recordTypeHandshake
	return nil
}

// take adds payload bytes of a handshake record to the message, and sets
// the outcome once it is known.
func (a *helloAssembler) take(frag []byte) {
	if a.nhs < len(a.hs) {
		c := copy(a.hs[a.nhs:], frag)
		a.nhs += c
		frag = frag[c:]
		if a.nhs < len(a.hs) {
			return
		}
		if a.helloErr = a.beginMessage(); a.helloErr != nil {
			return
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
	if len(a.msg) == a.end {
		a.hello, a.msg = a.msg, nil
	}
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
