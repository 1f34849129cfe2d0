package probe

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"golang.org/x/crypto/cryptobyte"
)

// longPacket builds a long header packet of the version with the given
// type bits, connection IDs and payload length (an Initial gets an empty
// token); the payload is zeros.
func longPacket(version uint32, typeBits byte, dcid, scid []byte, payload int) []byte {
	b := []byte{0xc0 | typeBits<<4}
	b = binary.BigEndian.AppendUint32(b, version)
	b = append(b, byte(len(dcid)))
	b = append(b, dcid...)
	b = append(b, byte(len(scid)))
	b = append(b, scid...)
	if longType(version, typeBits) == pktInitial {
		b = append(b, 0) // token length
	}
	b = append(b, 0x40|byte(payload>>8), byte(payload)) // 2-byte varint
	return append(b, make([]byte, payload)...)
}

// shortPacket builds a 1-RTT packet to dcid with n more bytes.
func shortPacket(dcid []byte, n int) []byte {
	return append(append([]byte{0x40}, dcid...), make([]byte, n)...)
}

func TestParseDatagram(t *testing.T) {
	t.Parallel()
	cid, other, srv := []byte("client-1"), []byte("someone2"), []byte{1, 2, 3, 4}
	tests := []struct {
		name  string
		d     []byte
		kinds []packetKind
		want  PacketCounts
	}{
		{"v1 Initial", longPacket(quicV1, 0, cid, srv, 1000), []packetKind{pktInitial},
			PacketCounts{Initial: 1}},
		{"v1 Initial, Handshake and 1-RTT coalesced",
			bytes.Join([][]byte{longPacket(quicV1, 0, cid, srv, 100), longPacket(quicV1, 2, cid, srv, 50), shortPacket(cid, 30)}, nil),
			[]packetKind{pktInitial, pktHandshake, pktShort}, PacketCounts{Initial: 1, Handshake: 1, Short: 1, ShortBytes: 1 + 8 + 30}},
		{"v2 types are permuted", bytes.Join([][]byte{longPacket(quicV2, 1, cid, srv, 100), longPacket(quicV2, 3, cid, srv, 40), longPacket(quicV2, 2, cid, srv, 40)}, nil),
			[]packetKind{pktInitial, pktHandshake, pktZeroRTT}, PacketCounts{Initial: 1, Handshake: 1, ZeroRTT: 1}},
		{"v1 0-RTT", longPacket(quicV1, 1, cid, srv, 60), []packetKind{pktZeroRTT}, PacketCounts{ZeroRTT: 1}},
		{"v1 Retry takes the rest", append(longPacket(quicV1, 3, cid, srv, 0)[:1+4+1+8+1+4], make([]byte, 40)...), []packetKind{pktRetry}, PacketCounts{Retry: 1}},
		{"Version Negotiation", append([]byte{0x80, 0, 0, 0, 0, 8}, append(append(cid, 4), append(srv, 0, 0, 0, 1)...)...),
			[]packetKind{pktVersionNegotiation}, PacketCounts{VersionNegotiation: 1}},
		{"1-RTT alone", shortPacket(cid, 30), []packetKind{pktShort}, PacketCounts{Short: 1, ShortBytes: 39, ShortAlone: 1}},
		{"another connection's packets", bytes.Join([][]byte{longPacket(quicV1, 2, other, srv, 50), shortPacket(other, 30)}, nil),
			[]packetKind{pktHandshake, pktShort}, PacketCounts{Other: 2}},
		{"unknown version", longPacket(0x1a2a3a4a, 0, cid, srv, 10), []packetKind{pktUnknown}, PacketCounts{Other: 1}},
		{"length past the end", longPacket(quicV1, 2, cid, srv, 50)[:40], []packetKind{pktInvalid}, PacketCounts{Other: 1}},
		{"garbage after a packet", append(longPacket(quicV1, 2, cid, srv, 50), 0x01, 0x02), []packetKind{pktHandshake, pktInvalid},
			PacketCounts{Handshake: 1, Other: 1}},
		{"short header without the fixed bit", append([]byte{0x00}, make([]byte, 40)...), []packetKind{pktInvalid}, PacketCounts{Other: 1}},
		{"too short for a 1-RTT packet", []byte{0x40, 1, 2}, []packetKind{pktInvalid}, PacketCounts{Other: 1}},
	}
	for _, tt := range tests {
		ps := parseDatagram(tt.d)
		var kinds []packetKind
		total := 0
		for _, p := range ps {
			kinds = append(kinds, p.kind)
			total += len(p.b)
		}
		if !slicesEqual(kinds, tt.kinds) || total != len(tt.d) {
			t.Errorf("%s: kinds %v covering %d of %d bytes, want %v", tt.name, kinds, total, len(tt.d), tt.kinds)
		}
		var c PacketCounts
		c.add(tt.d, cid)
		tt.want.Datagrams, tt.want.Bytes = 1, len(tt.d)
		if c != tt.want {
			t.Errorf("%s: counted %+v, want %+v", tt.name, c, tt.want)
		}
	}
}

func slicesEqual(a, b []packetKind) bool {
	return bytes.Equal(kindBytes(a), kindBytes(b))
}

func kindBytes(ks []packetKind) []byte {
	b := make([]byte, len(ks))
	for i, k := range ks {
		b[i] = byte(k)
	}
	return b
}

func TestVarint(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   []byte
		want uint64
		ok   bool
	}{
		{[]byte{0x25}, 37, true},
		{[]byte{0x7b, 0xbd}, 15293, true},
		{[]byte{0x9d, 0x7f, 0x3e, 0x7d}, 494878333, true},
		{[]byte{0xc2, 0x19, 0x7c, 0x5e, 0xff, 0x14, 0xe8, 0x8c}, 151288809941952652, true},
		{[]byte{0x7b}, 0, false},
		{nil, 0, false},
	} {
		r := cryptobyte.String(tt.in)
		var v uint64
		if ok := readVarint(&r, &v); ok != tt.ok || v != tt.want {
			t.Errorf("varint(%x) = %d, %v; want %d, %v", tt.in, v, ok, tt.want, tt.ok)
		}
	}
}

// FuzzParseDatagram: any datagram splits into packets that cover it
// exactly, and counting it never panics.
func FuzzParseDatagram(f *testing.F) {
	cid := []byte("client-1")
	f.Add(longPacket(quicV1, 0, cid, []byte{1}, 30))
	f.Add(bytes.Join([][]byte{longPacket(quicV2, 1, cid, nil, 10), shortPacket(cid, 20)}, nil))
	f.Add([]byte{0x80, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, d []byte) {
		total := 0
		for _, p := range parseDatagram(d) {
			if len(p.b) == 0 {
				t.Fatalf("an empty packet in %x", d)
			}
			total += len(p.b)
		}
		if total != len(d) {
			t.Fatalf("packets cover %d of %d bytes", total, len(d))
		}
		var c PacketCounts
		c.add(d, cid)
	})
}

// TestSplitFlight: a replayed flight sends its Initial packets apart
// from its 0-RTT ones. A datagram that coalesces a 0-RTT packet after an
// Initial one is cut between them, the Initial part padded back to the
// 1,200 bytes a server requires (its padding parsing as no packet); a
// datagram of Initial packets alone, and one of 0-RTT alone, go as they
// are.
func TestSplitFlight(t *testing.T) {
	t.Parallel()
	dcid, scid := []byte{1, 2, 3, 4, 5, 6, 7, 8}, []byte{9, 9, 9, 9}
	initial := longPacket(quicV1, 0, dcid, scid, 900)
	zeroRTT := longPacket(quicV1, 1, dcid, scid, 200)
	coalesced := append(append([]byte(nil), initial...), zeroRTT...)
	alone := longPacket(quicV1, 0, dcid, scid, 1250)
	first, later := splitFlight([][]byte{coalesced, alone, zeroRTT})
	if len(first) != 2 || len(later) != 2 {
		t.Fatalf("%d datagrams first, %d later; want 2 and 2", len(first), len(later))
	}
	if len(first[0]) != minInitialDatagram || !bytes.Equal(first[0][:len(initial)], initial) {
		t.Errorf("the cut Initial datagram is %d bytes (want %d) or does not start with the Initial packet", len(first[0]), minInitialDatagram)
	}
	if ps := parseDatagram(first[0]); len(ps) < 1 || ps[0].kind != pktInitial || slices.ContainsFunc(ps[1:], func(p quicPacket) bool { return p.kind != pktInvalid }) {
		t.Errorf("the cut Initial datagram parses as %v: want the Initial packet and padding that is no packet", ps)
	}
	if !bytes.Equal(first[1], alone) || !bytes.Equal(later[0], zeroRTT) || !bytes.Equal(later[1], zeroRTT) {
		t.Error("datagrams of one kind of packet were changed")
	}
}
