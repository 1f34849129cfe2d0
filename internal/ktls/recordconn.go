package ktls

import (
	"encoding/binary"
	"net"
	"sync"
	"sync/atomic"
)

// RecordConn is the net.Conn placed under a *tls.Conn during the handshake
// (tls.Client(ktls.WrapConn(tcp), cfg)). It does two things:
//
//   - Read never returns bytes past the end of the TLS record being read
//     (it parses the 5-byte record headers), so crypto/tls, which reads
//     greedily, never holds bytes of a record it has not processed. When
//     the kernel takes over, everything after the last record crypto/tls
//     consumed is still in the socket.
//   - It owns the connection's key log (ClientConfig and ServerConfig give
//     crypto/tls a config that writes into it), so secrets are bound to the
//     connection they were logged for.
//   - It observes both directions: the ClientHello and ServerHello randoms
//     (to check them against the key log and build the TLS 1.2 key block), the role (who wrote the ClientHello), the number of
//     records per direction and after ChangeCipherSpec (TLS 1.2 sequence
//     numbers), and a copy of the first encrypted records (TLS 1.3: Enable
//     trial-decrypts them to find where the application-traffic epoch
//     starts, which counts NewSessionTicket records exactly).
//
// Reading costs one extra read system call per record (the header is
// returned on its own), so call Passthrough when a connection stays in user
// space. RecordConn does not implement syscall.Conn on purpose: sendfile
// from an *os.File straight to the socket would bypass TLS.
type RecordConn struct {
	net.Conn

	pass      atomic.Bool // no limiting, no observation
	draining  atomic.Bool // Enable empties tls.Conn's buffer: never read the socket
	rdBlocked atomic.Bool // RX belongs to the kernel
	wrBlocked atomic.Bool // TX belongs to the kernel

	rd, wr recordObserver

	keys connKeyLog // this connection's key log (ClientConfig, ServerConfig)

	mu           sync.Mutex
	clientRandom [32]byte
	serverRandom [32]byte
	haveCR       bool
	haveSR       bool
	roleKnown    bool
	isClient     bool
}

// Limits on the encrypted records kept per direction for TLS 1.3 trial
// decryption. A handshake is 4-8 encrypted records; the application epoch
// starts within them unless the caller exchanged a lot of data in user
// space before Enable.
const (
	maxRetainedRecords = 64
	maxRetainedBytes   = 512 << 10
	// maxFinishedRecord bounds the TLS 1.2 Finished record kept per
	// direction (12 bytes of verify_data, a 4-byte header, explicit nonce
	// and tag make about 40).
	maxFinishedRecord = 256
)

// recordObserver follows the record framing of one direction.
type recordObserver struct {
	mu      sync.Mutex
	hdr     [recordHeaderLen]byte
	hdrN    int
	inBody  bool
	bodyLen int
	bodyN   int

	records    uint64 // complete records
	appRecords uint64 // complete records of outer type application_data
	sawCCS     bool
	afterCCS   uint64 // complete records after the first ChangeCipherSpec

	cur          []byte   // the application_data record being copied, if retaining
	retained     [][]byte // the first application_data records, complete
	retainBytes  int
	retainClosed bool // stopped retaining (limit or Passthrough)

	// The first record after ChangeCipherSpec (TLS 1.2: Finished, the
	// first record under the new keys), kept to prove the keys on it.
	ccsCur    []byte
	afterCCS0 []byte

	// first handshake message of this direction: header + version + random
	hello     [4 + 2 + 32]byte
	helloN    int
	helloDone bool
}

// WrapConn returns a RecordConn around c (normally a *net.TCPConn).
func WrapConn(c net.Conn) *RecordConn { return &RecordConn{Conn: c} }

// atBoundary reports whether no record is partially seen.
func (o *recordObserver) atBoundary() bool { return !o.inBody && o.hdrN == 0 }

// limit is how many bytes may be read without crossing a record boundary.
func (o *recordObserver) limit() int {
	if o.inBody {
		return o.bodyLen - o.bodyN
	}
	return recordHeaderLen - o.hdrN
}

// feed advances the framing over b, which the caller has read or written.
func (o *recordObserver) feed(b []byte, onHello func(msgType byte, random []byte)) {
	for len(b) > 0 {
		if !o.inBody {
			n := copy(o.hdr[o.hdrN:], b)
			o.hdrN += n
			b = b[n:]
			if o.hdrN < recordHeaderLen {
				return
			}
			o.inBody = true
			o.bodyLen = int(binary.BigEndian.Uint16(o.hdr[3:5]))
			o.bodyN = 0
			if o.hdr[0] == recordApplicationData && !o.retainClosed {
				o.cur = append(make([]byte, 0, recordHeaderLen+o.bodyLen), o.hdr[:]...)
			}
			if o.sawCCS && o.afterCCS == 0 && !o.retainClosed && o.bodyLen <= maxFinishedRecord {
				o.ccsCur = append(make([]byte, 0, recordHeaderLen+o.bodyLen), o.hdr[:]...)
			}
			if o.bodyLen == 0 {
				o.endRecord()
			}
			continue
		}
		n := min(len(b), o.bodyLen-o.bodyN)
		chunk := b[:n]
		b = b[n:]
		o.bodyN += n
		if o.cur != nil {
			o.cur = append(o.cur, chunk...)
		}
		if o.ccsCur != nil {
			o.ccsCur = append(o.ccsCur, chunk...)
		}
		if o.hdr[0] == recordHandshake && !o.sawCCS && !o.helloDone {
			o.feedHello(chunk, onHello)
		}
		if o.bodyN == o.bodyLen {
			o.endRecord()
		}
	}
}

// feedHello collects the first handshake message's type and random
// (ClientHello and ServerHello both start with version(2) || random(32)).
func (o *recordObserver) feedHello(chunk []byte, onHello func(byte, []byte)) {
	n := copy(o.hello[o.helloN:], chunk)
	o.helloN += n
	if o.helloN >= 4 {
		msgLen := int(o.hello[1])<<16 | int(o.hello[2])<<8 | int(o.hello[3])
		if msgLen < 34 {
			o.helloDone = true // malformed or not a hello: nothing to learn
			return
		}
	}
	if o.helloN == len(o.hello) {
		o.helloDone = true
		if onHello != nil {
			onHello(o.hello[0], o.hello[6:38])
		}
	}
}

func (o *recordObserver) endRecord() {
	typ := o.hdr[0]
	o.records++
	if o.sawCCS {
		if o.afterCCS == 0 && o.ccsCur != nil {
			o.afterCCS0 = o.ccsCur
		}
		o.afterCCS++
	}
	o.ccsCur = nil
	if typ == recordChangeCipherSpec {
		o.sawCCS = true
	}
	if typ == recordApplicationData {
		o.appRecords++
		if o.cur != nil {
			o.retained = append(o.retained, o.cur)
			o.retainBytes += len(o.cur)
			if len(o.retained) >= maxRetainedRecords || o.retainBytes >= maxRetainedBytes {
				o.retainClosed = true
			}
		}
	}
	o.cur = nil
	o.inBody = false
	o.hdrN = 0
}

func (o *recordObserver) stopRetaining() {
	o.mu.Lock()
	o.retainClosed = true
	o.retained = nil
	o.cur = nil
	o.ccsCur = nil
	o.afterCCS0 = nil
	o.mu.Unlock()
}

func (c *RecordConn) onHello(written bool) func(byte, []byte) {
	return func(msgType byte, random []byte) {
		c.mu.Lock()
		defer c.mu.Unlock()
		switch msgType {
		case 1: // ClientHello; a second one after HelloRetryRequest repeats the random
			copy(c.clientRandom[:], random)
			c.haveCR = true
			c.roleKnown = true
			c.isClient = written
		case 2: // ServerHello (or HelloRetryRequest; only TLS 1.2 uses the server random and it has no HRR)
			copy(c.serverRandom[:], random)
			c.haveSR = true
		}
	}
}

// Read reads at most up to the end of the current TLS record.
func (c *RecordConn) Read(p []byte) (int, error) {
	if c.draining.Load() {
		return 0, errDraining{}
	}
	if c.rdBlocked.Load() {
		return 0, errOffloaded
	}
	if c.pass.Load() || len(p) == 0 {
		return c.Conn.Read(p)
	}
	o := &c.rd
	o.mu.Lock()
	lim := o.limit()
	o.mu.Unlock()
	if len(p) > lim {
		p = p[:lim]
	}
	n, err := c.Conn.Read(p)
	if n > 0 {
		o.mu.Lock()
		o.feed(p[:n], c.onHello(false))
		o.mu.Unlock()
	}
	return n, err
}

// Write writes p and observes the records in it.
func (c *RecordConn) Write(p []byte) (int, error) {
	if c.wrBlocked.Load() {
		return 0, errOffloaded
	}
	if c.pass.Load() {
		return c.Conn.Write(p)
	}
	n, err := c.Conn.Write(p)
	if n > 0 {
		o := &c.wr
		o.mu.Lock()
		o.feed(p[:n], c.onHello(true))
		o.mu.Unlock()
	}
	return n, err
}

// Passthrough stops record limiting and observation, frees the copies of
// records kept for Enable and wipes the connection's secrets. Call it when
// the connection stays in user space; Enable calls it itself, on success
// and on failure.
func (c *RecordConn) Passthrough() {
	c.pass.Store(true)
	c.rd.stopRetaining()
	c.wr.stopRetaining()
	c.keys.wipe()
}

// ClientRandom returns the ClientHello random seen on the connection.
func (c *RecordConn) ClientRandom() ([32]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.clientRandom, c.haveCR
}

// Records returns the number of complete TLS records read and written.
func (c *RecordConn) Records() (read, written uint64) {
	c.rd.mu.Lock()
	read = c.rd.records
	c.rd.mu.Unlock()
	c.wr.mu.Lock()
	written = c.wr.records
	c.wr.mu.Unlock()
	return read, written
}

// dirSnapshot is what Enable needs to know about one direction.
type dirSnapshot struct {
	atBoundary bool
	sawCCS     bool
	afterCCS   uint64
	afterCCS0  []byte // the first record after ChangeCipherSpec, if kept
	appRecords uint64
	retained   [][]byte
	truncated  bool // appRecords > len(retained)
}

func (o *recordObserver) snapshot() dirSnapshot {
	o.mu.Lock()
	defer o.mu.Unlock()
	return dirSnapshot{
		atBoundary: o.atBoundary(),
		sawCCS:     o.sawCCS,
		afterCCS:   o.afterCCS,
		afterCCS0:  o.afterCCS0,
		appRecords: o.appRecords,
		retained:   o.retained,
		truncated:  uint64(len(o.retained)) < o.appRecords,
	}
}
