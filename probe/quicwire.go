package probe

import (
	"bytes"
	"encoding/binary"

	"github.com/tlsbench/tlsbench/tlsconf"

	"golang.org/x/crypto/cryptobyte"
)

// What the probe reads of QUIC packets without their keys (RFC 8999,
// RFC 9000 section 17, RFC 9369 section 3.2): the header form, the long
// header's version, type and connection IDs, and the lengths that
// delimit coalesced packets. Everything else is encrypted. The parse is
// of datagrams from the network, hostile ones included: every length is
// checked, and what does not parse is counted as such, never guessed.

// QUIC versions the probe names (RFC 9000, RFC 9369).
const (
	quicV1 = tlsconf.QUICVersion1
	quicV2 = tlsconf.QUICVersion2
)

// packetKind is what a QUIC packet is, as far as its header says.
type packetKind uint8

const (
	pktInitial packetKind = iota
	pktZeroRTT
	pktHandshake
	pktRetry
	pktVersionNegotiation
	pktShort   // a short header (1-RTT) packet
	pktUnknown // a long header of a version the probe does not know
	pktInvalid // not a QUIC packet, or truncated
)

// quicPacket is one packet of a datagram.
type quicPacket struct {
	kind    packetKind
	version uint32
	// dcid and scid are the connection IDs of a long header; a short
	// header's dcid is not delimited on the wire (its length is the
	// receiver's choice) and is left nil.
	dcid, scid []byte
	// b is the packet's bytes in the datagram.
	b []byte
}

// longType maps the two type bits of a long header to a kind, per
// version: v2 permutes v1's (RFC 9369 section 3.2).
func longType(version uint32, bits byte) packetKind {
	switch version {
	case quicV1:
		return [...]packetKind{pktInitial, pktZeroRTT, pktHandshake, pktRetry}[bits]
	case quicV2:
		return [...]packetKind{pktRetry, pktInitial, pktZeroRTT, pktHandshake}[bits]
	}
	return pktUnknown
}

// parseDatagram splits a datagram into its coalesced packets. A short
// header packet, a Retry, a Version Negotiation packet or a long header
// of an unknown version takes the rest of the datagram; so does an
// invalid one, which ends the parse.
func parseDatagram(d []byte) []quicPacket {
	var out []quicPacket
	for len(d) > 0 {
		p := parsePacket(d)
		out = append(out, p)
		d = d[len(p.b):]
	}
	return out
}

// parsePacket reads the packet at the start of d.
func parsePacket(d []byte) quicPacket {
	invalid := quicPacket{kind: pktInvalid, b: d}
	if len(d) == 0 {
		return invalid
	}
	if d[0]&0x80 == 0 {
		// Short header: the fixed bit must be set (RFC 9000 17.3.1).
		if d[0]&0x40 == 0 || len(d) < 1+1+16 {
			return invalid // too short for a packet number and a tag
		}
		return quicPacket{kind: pktShort, b: d}
	}
	r := cryptobyte.String(d[1:])
	var version uint32
	var dcid, scid cryptobyte.String
	if !r.ReadUint32(&version) || !r.ReadUint8LengthPrefixed(&dcid) || !r.ReadUint8LengthPrefixed(&scid) {
		return invalid
	}
	p := quicPacket{version: version, dcid: dcid, scid: scid, b: d}
	if version == 0 {
		p.kind = pktVersionNegotiation
		return p
	}
	p.kind = longType(version, (d[0]>>4)&3)
	switch p.kind {
	case pktUnknown, pktRetry:
		return p
	case pktInitial:
		var token uint64
		if !readVarint(&r, &token) || uint64(len(r)) < token {
			return invalid
		}
		r = r[token:]
	}
	var length uint64
	if !readVarint(&r, &length) || length == 0 || uint64(len(r)) < length {
		return invalid
	}
	p.b = d[:len(d)-len(r)+int(length)]
	return p
}

// readVarint reads a QUIC variable-length integer (RFC 9000 section 16).
func readVarint(r *cryptobyte.String, v *uint64) bool {
	if len(*r) == 0 {
		return false
	}
	n := 1 << ((*r)[0] >> 6)
	if len(*r) < n {
		return false
	}
	var b [8]byte
	copy(b[8-n:], (*r)[:n])
	b[8-n] &= 0x3f
	*v = binary.BigEndian.Uint64(b[:])
	*r = (*r)[n:]
	return true
}

// PacketCounts is what one side sent, by QUIC packet type, as the
// unencrypted part of each packet's header says.
type PacketCounts struct {
	Datagrams int `json:"datagrams"`
	Bytes     int `json:"bytes"`
	// Long header packets by type.
	Initial            int `json:"initial,omitempty"`
	ZeroRTT            int `json:"zero_rtt,omitempty"`
	Handshake          int `json:"handshake,omitempty"`
	Retry              int `json:"retry,omitempty"`
	VersionNegotiation int `json:"version_negotiation,omitempty"`
	// Short header (1-RTT) packets and their bytes; ShortAlone the
	// datagrams that carry 1-RTT packets and nothing else.
	Short      int `json:"one_rtt,omitempty"`
	ShortBytes int `json:"one_rtt_bytes,omitempty"`
	ShortAlone int `json:"one_rtt_alone,omitempty"`
	// Other is packets of another connection (their destination is not
	// the client's connection ID), of unknown versions, or not QUIC.
	Other int `json:"other,omitempty"`
}

// add counts datagram d; cid, when set, is the client's connection ID,
// which every packet of the client's connection is addressed to.
func (c *PacketCounts) add(d []byte, cid []byte) {
	c.Datagrams++
	c.Bytes += len(d)
	ps := parseDatagram(d)
	if len(ps) == 1 && ps[0].kind == pktShort && (cid == nil || bytes.HasPrefix(d[1:], cid)) {
		c.ShortAlone++
	}
	for _, p := range ps {
		ours := cid == nil || bytes.Equal(p.dcid, cid)
		if p.kind == pktShort && cid != nil {
			// The short header's destination connection ID follows
			// its first byte, with the length the client chose.
			ours = len(p.b) >= 1+len(cid) && bytes.Equal(p.b[1:1+len(cid)], cid)
		}
		if !ours {
			c.Other++
			continue
		}
		switch p.kind {
		case pktInitial:
			c.Initial++
		case pktZeroRTT:
			c.ZeroRTT++
		case pktHandshake:
			c.Handshake++
		case pktRetry:
			c.Retry++
		case pktVersionNegotiation:
			c.VersionNegotiation++
		case pktShort:
			c.Short++
			c.ShortBytes += len(p.b)
		default:
			c.Other++
		}
	}
}

// long is the number of long header packets counted.
func (c PacketCounts) long() int {
	return c.Initial + c.ZeroRTT + c.Handshake + c.Retry + c.VersionNegotiation
}
