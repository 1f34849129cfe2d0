package probe

import (
	"context"
	"errors"
	"net"
	"sync"
	"syscall"
	"time"
)

// A QUIC probe connection does not reach the server directly: quic-go
// sends to a relay on UDP loopback, which forwards every datagram both
// ways and keeps what the probe needs of them. QUIC encrypts almost
// everything, but not what the replay test needs: which packets a
// datagram holds (Initial, 0-RTT, Handshake, 1-RTT), whom they are
// addressed to, and their sizes. The relay keeps
//
//   - the client's first flight, byte for byte, to be sent again (the
//     replay): its Initial packets with the ClientHello and its 0-RTT
//     packets with the early data. The relay says when the burst of
//     datagrams that carries the ClientHello is over (initialOut, once
//     the client has been quiet for relayBurstQuiet), so that the
//     request can follow in datagrams of its own. To keep the flight
//     whole, the relay gives the client nothing from the server until
//     the client has been quiet for relayQuiet (and, when early data is
//     expected, has sent something after that burst; relayGatherMax at
//     most): a client that has heard from the
//     server addresses what it sends next to the connection ID the
//     server chose, which a replay to a server that has forgotten the
//     connection cannot use (a server may acknowledge the first half of
//     a ClientHello before the second has been sent);
//   - what the server sent before the client's Finished reached it,
//     and what it sent in all.
//
// With hold set, the relay also keeps the client's Finished (and
// whatever the client sends after it) from the server until hold has
// passed since the first flight, so that what the server sends before
// it is what the server sends, within hold, to a first flight that is
// never followed by a Finished: exactly the situation of a replayed
// flight, whose sender cannot finish the handshake. That is the
// calibration the replay is judged against.

// Limits of what the relay keeps, against servers that flood, and of
// the wait for the client's first flight.
const (
	relayMaxFlight    = 32       // datagrams of the client's first flight
	relayMaxDatagram  = 64 << 10 // UDP's maximum, near enough
	replayMaxAnswered = 4096     // datagrams counted in answer to a replay
	relayQuiet        = 5 * time.Millisecond
	relayBurstQuiet   = 2 * time.Millisecond
	relayGatherMax    = 100 * time.Millisecond
)

// relayLinger is how long a relay that is closed keeps forwarding what
// the client sent last: its CONNECTION_CLOSE, without which the server
// would keep the connection (and ignore a replay of its first flight)
// until its idle timeout.
const relayLinger = 50 * time.Millisecond

// relay is one connection's relay.
type relay struct {
	down *net.UDPConn // quic-go's peer, on loopback
	up   *net.UDPConn // connected to the server
	hold time.Duration
	// early: the client is expected to send 0-RTT packets.
	early bool
	// clientDone ends with the loop that reads the client, loops with
	// both.
	clientDone, loops sync.WaitGroup
	// downMu orders what goes to the client.
	downMu sync.Mutex

	mu       sync.Mutex
	client   *net.UDPAddr
	start    time.Time // the client's first datagram
	cid      []byte    // the client's connection ID (its first Initial's source)
	gather   *time.Timer
	gathered bool // the first flight is complete: the server's datagrams go on
	// burst ends the ClientHello's burst: it closes initialOut; after
	// counts the client's datagrams since.
	burst      *time.Timer
	burstOver  bool
	initialOut chan struct{}
	after      int
	pending    [][]byte // the server's datagrams until then
	flight     [][]byte // the client's first flight
	overlong   bool     // the first flight had more than relayMaxFlight datagrams
	finished   bool     // the client sent a Handshake or 1-RTT packet (its Finished)
	released   bool     // held datagrams go on (hold passed)
	held       [][]byte
	// before counts what the server sent before the client's Finished
	// was forwarded; all what it sent in all.
	before, all PacketCounts
	firstAnswer time.Duration // from start to the server's first datagram
	refused     bool          // the server's host said its port is closed
	// onRefused, when set, is called (once, with mu held) when the
	// server's host says that nothing listens on its port: waiting for
	// the handshake is pointless then.
	onRefused func()
}

// newRelay starts a relay to the server at addr.
func newRelay(addr *net.UDPAddr, hold time.Duration, early bool, onRefused func()) (*relay, error) {
	up, err := net.DialUDP("udp", nil, addr)
	if err != nil {
		return nil, err
	}
	down, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		up.Close()
		return nil, err
	}
	r := &relay{down: down, up: up, hold: hold, early: early, released: hold <= 0, onRefused: onRefused,
		initialOut: make(chan struct{})}
	r.loops.Add(2)
	r.clientDone.Add(1)
	go r.fromClient()
	go r.fromServer()
	return r, nil
}

// Addr is where quic-go should send.
func (r *relay) Addr() *net.UDPAddr { return r.down.LocalAddr().(*net.UDPAddr) }

// Close stops the relay, once what the client has sent is forwarded.
func (r *relay) Close() {
	r.down.SetReadDeadline(time.Now().Add(relayLinger))
	r.release()
	r.clientDone.Wait()
	r.down.Close()
	r.up.Close()
	r.loops.Wait()
	r.mu.Lock()
	if r.gather != nil {
		r.gather.Stop()
		r.burst.Stop()
	}
	r.mu.Unlock()
}

// InitialOut is closed once the datagrams that carry the client's
// ClientHello are out.
func (r *relay) InitialOut() <-chan struct{} { return r.initialOut }

// fromClient forwards the client's datagrams, keeping its first flight
// and holding its Finished as hold says.
func (r *relay) fromClient() {
	defer r.loops.Done()
	defer r.clientDone.Done()
	buf := make([]byte, relayMaxDatagram)
	for {
		n, from, err := r.down.ReadFromUDP(buf)
		if err != nil {
			return
		}
		d := append([]byte(nil), buf[:n]...)
		if r.clientDatagram(from, d) {
			r.sendUp(d)
		}
	}
}

// clientDatagram notes a datagram of the client and reports whether to
// forward it now.
func (r *relay) clientDatagram(from *net.UDPAddr, d []byte) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	if r.client == nil {
		r.client, r.start = from, now
		if ps := parseDatagram(d); len(ps) > 0 && ps[0].kind == pktInitial {
			r.cid = ps[0].scid
		}
		r.gather = time.AfterFunc(relayQuiet, r.gathered1)
		r.burst = time.AfterFunc(relayBurstQuiet, r.burstEnded)
		if r.hold > 0 {
			time.AfterFunc(r.hold, r.release)
		}
	} else if from.Port != r.client.Port || !from.IP.Equal(r.client.IP) {
		return false // not quic-go's socket
	}
	if r.burstOver {
		r.after++
	} else {
		r.burst.Reset(relayBurstQuiet)
	}
	if !r.gathered {
		// The client has heard nothing yet: this is its first flight.
		if len(r.flight) < relayMaxFlight {
			r.flight = append(r.flight, d)
		} else {
			r.overlong = true
		}
		r.gather.Reset(min(relayQuiet, r.start.Add(relayGatherMax).Sub(now)))
	}
	for _, p := range parseDatagram(d) {
		switch p.kind {
		case pktHandshake, pktShort:
			r.finished = true
		}
	}
	if r.finished && !r.released {
		r.held = append(r.held, d)
		return false
	}
	return true
}

// burstEnded ends the ClientHello's burst (once: a timer reset as it
// fires runs again).
func (r *relay) burstEnded() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.burstOver {
		r.burstOver = true
		close(r.initialOut)
	}
}

// gathered1 ends the first flight: the server's datagrams go to the
// client from now on.
func (r *relay) gathered1() {
	r.downMu.Lock()
	defer r.downMu.Unlock()
	r.mu.Lock()
	if left := relayGatherMax - time.Since(r.start); r.early && r.after == 0 && left > 0 {
		r.gather.Reset(left)
		r.mu.Unlock()
		return
	}
	r.gathered = true
	pending, client := r.pending, r.client
	r.pending = nil
	r.mu.Unlock()
	for _, d := range pending {
		r.down.WriteToUDP(d, client)
	}
}

// release sends the datagrams held, in order, and those that follow.
func (r *relay) release() {
	r.mu.Lock()
	held := r.held
	r.held, r.released = nil, true
	r.mu.Unlock()
	for _, d := range held {
		r.sendUp(d)
	}
}

// sendUp sends a datagram to the server. A datagram lost is QUIC's to
// recover; an ICMP port unreachable that an earlier one met comes back
// as the error of whichever call on the socket follows, this one or a
// read.
func (r *relay) sendUp(d []byte) {
	if _, err := r.up.Write(d); errors.Is(err, syscall.ECONNREFUSED) {
		r.noteRefused()
	}
}

// noteRefused notes an ICMP port unreachable; before the server has
// sent anything, it gives up the connection.
func (r *relay) noteRefused() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.refused && r.all.Datagrams == 0 && r.onRefused != nil {
		r.onRefused()
	}
	r.refused = true
}

// fromServer forwards the server's datagrams to the client and counts
// them.
func (r *relay) fromServer() {
	defer r.loops.Done()
	buf := make([]byte, relayMaxDatagram)
	for {
		n, err := r.up.Read(buf)
		if errors.Is(err, syscall.ECONNREFUSED) {
			// An ICMP port unreachable answered a datagram.
			r.noteRefused()
			continue
		}
		if err != nil {
			return
		}
		r.serverDatagram(buf[:n])
	}
}

// serverDatagram counts a datagram of the server and forwards it (or
// keeps it until the client's first flight is complete).
func (r *relay) serverDatagram(d []byte) {
	r.downMu.Lock()
	defer r.downMu.Unlock()
	r.mu.Lock()
	if r.all.Datagrams == 0 {
		r.firstAnswer = time.Since(r.start)
	}
	r.all.add(d, r.cid)
	if !r.finished || !r.released {
		r.before.add(d, r.cid)
	}
	client := r.client
	if client != nil && !r.gathered {
		if len(r.pending) < relayMaxFlight {
			r.pending = append(r.pending, append([]byte(nil), d...))
		}
		client = nil
	}
	r.mu.Unlock()
	if client != nil {
		r.down.WriteToUDP(d, client)
	}
}

// relayLog is what a relay saw of its connection.
type relayLog struct {
	// Flight is the client's first flight, CID its connection ID.
	Flight   [][]byte
	CID      []byte
	Overlong bool
	// FlightCounts counts the packets of the first flight.
	FlightCounts PacketCounts
	// Before is what the server sent before the client's Finished was
	// forwarded (with hold: within hold of the first flight, unless
	// the client sent no Finished); All what it sent in all.
	Before, All PacketCounts
	// FirstAnswer is the time from the client's first datagram to the
	// server's first (zero when none came).
	FirstAnswer time.Duration
	// Refused: the server's host answered with ICMP port unreachable,
	// and the server sent nothing.
	Refused bool
}

// log returns what the relay saw so far.
func (r *relay) log() relayLog {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := relayLog{Flight: r.flight, CID: r.cid, Overlong: r.overlong, Before: r.before, All: r.all,
		FirstAnswer: r.firstAnswer, Refused: r.refused && r.all.Datagrams == 0}
	for _, d := range r.flight {
		l.FlightCounts.add(d, nil)
	}
	return l
}

// replayAnswer is what the server sent in answer to a replayed flight:
// Handshake is its answer to the datagrams that carry Initial packets
// (the ClientHello, and any 0-RTT packets that travel with it), Later
// its answer to the datagrams of 0-RTT packets alone, sent once the
// first answer was over (Later is nil when there were none).
type replayAnswer struct {
	Handshake PacketCounts
	Later     *PacketCounts
	// Apart is the number of datagrams sent after the first answer.
	Apart int
}

// replaySettle is how quiet the server must have been after its first
// answer to a replay before the 0-RTT datagrams alone follow it.
const replaySettle = 10 * time.Millisecond

// replay sends the datagrams of flight again, from a new UDP socket (a
// new address, as an attacker's would be), and counts what the server
// sends back. It sends them in two steps: first those that carry
// Initial packets (the ClientHello, with the 0-RTT packets that travel
// with it), then, once the server has answered and been quiet for
// replaySettle (or wait has passed), those of 0-RTT packets alone; each
// answer is watched for wait. What the server sends after the second
// step answers the 0-RTT packets alone, apart from its handshake: a
// server pads the datagrams of its first answer, which may hide an
// acknowledgement or answer to early data inside its padding. cid is
// the client's connection ID of the flight, which the server's packets
// are addressed to.
func replay(ctx context.Context, addr *net.UDPAddr, flight [][]byte, cid []byte, wait time.Duration) (replayAnswer, error) {
	var ans replayAnswer
	first, later := splitFlight(flight)
	c, err := net.DialUDP("udp", nil, addr)
	if err != nil {
		return ans, err
	}
	defer c.Close()
	if err := writeAll(c, first); err != nil {
		return ans, err
	}
	end := time.Now().Add(wait)
	if len(later) == 0 {
		readAnswer(ctx, c, cid, &ans.Handshake, end, 0)
		return ans, ctx.Err()
	}
	readAnswer(ctx, c, cid, &ans.Handshake, end, replaySettle)
	if err := writeAll(c, later); err != nil {
		return ans, err
	}
	ans.Apart = len(later)
	ans.Later = new(PacketCounts)
	readAnswer(ctx, c, cid, ans.Later, time.Now().Add(wait), 0)
	return ans, ctx.Err()
}

// minInitialDatagram is the least a client's datagram carrying an
// Initial packet may be (RFC 9000, section 14.1): a server drops smaller
// ones.
const minInitialDatagram = 1200

// splitFlight separates a first flight into the datagrams of its Initial
// packets and those of its 0-RTT packets, for the replay to send apart.
// A client may coalesce a 0-RTT packet into a datagram after an Initial
// one (quic-go does when there is room, more often on a loaded machine):
// the datagram is then cut after its Initial packets, which are padded
// back to the Initial datagram's minimum with zeros (bytes after the
// last packet, which a receiver discards: they parse as no packet of
// the connection), and its 0-RTT packets go in a datagram of their own.
func splitFlight(flight [][]byte) (first, later [][]byte) {
	for _, d := range flight {
		ps := parseDatagram(d)
		if len(ps) == 0 || ps[0].kind != pktInitial {
			later = append(later, d)
			continue
		}
		cut := 0
		for _, p := range ps {
			if p.kind != pktInitial {
				break
			}
			cut += len(p.b)
		}
		if cut == len(d) {
			first = append(first, d)
			continue
		}
		head := make([]byte, max(cut, minInitialDatagram))
		copy(head, d[:cut])
		first = append(first, head)
		later = append(later, d[cut:])
	}
	return first, later
}

func writeAll(c *net.UDPConn, ds [][]byte) error {
	for _, d := range ds {
		if _, err := c.Write(d); err != nil {
			return err
		}
	}
	return nil
}

// readAnswer counts what c receives until end, or, with settle, until
// settle has passed without a datagram after the server's handshake
// began (its first Handshake packet), or it sent a Retry or Version
// Negotiation.
func readAnswer(ctx context.Context, c *net.UDPConn, cid []byte, into *PacketCounts, end time.Time, settle time.Duration) {
	if dl, ok := ctx.Deadline(); ok && dl.Before(end) {
		end = dl
	}
	buf := make([]byte, relayMaxDatagram)
	for into.Datagrams < replayMaxAnswered && ctx.Err() == nil {
		dl := end
		begun := into.Handshake > 0 || into.Retry > 0 || into.VersionNegotiation > 0
		if t := time.Now().Add(settle); settle > 0 && begun && t.Before(end) {
			dl = t
		}
		c.SetReadDeadline(dl)
		n, err := c.Read(buf)
		if errors.Is(err, syscall.ECONNREFUSED) {
			continue
		}
		if err != nil {
			return // the deadline, normally
		}
		into.add(buf[:n], cid)
	}
}
