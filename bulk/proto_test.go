package bulk_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/bulk"
)

// TestMessagesRoundTrip: what one end marshals the other reads back
// unchanged, and a message too long for the wire is cut, not refused.
func TestMessagesRoundTrip(t *testing.T) {
	t.Parallel()
	for _, s := range []bulk.Setup{
		{Buffer: 1},
		{KTLSTX: true, Buffer: 16 << 10, Source: 3},
		{KTLSRX: true, KTLSTX: true, Buffer: bulk.MaxBuffer, Source: 65535},
	} {
		got, err := bulk.ParseSetup(s.Marshal())
		if err != nil || got != s {
			t.Errorf("setup %+v: read back %+v, %v", s, got, err)
		}
	}
	for _, r := range []bulk.Round{
		{Directions: bulk.Download, Bytes: 1},
		{Directions: bulk.Download | bulk.Upload, Bytes: 1 << 40, DownloadPhase: 7, UploadPhase: bulk.PatternPeriod - 1},
	} {
		got, err := bulk.ParseRound(r.Marshal())
		if err != nil || got != r {
			t.Errorf("round %+v: read back %+v, %v", r, got, err)
		}
	}
	long := strings.Repeat("x", 5000)
	for _, a := range []bulk.Ack{
		{Status: bulk.OK, KTLSTX: true, Sendfile: true, SourceSize: 1 << 33},
		{Status: bulk.Refused, Message: "no"},
		{Status: bulk.Refused, Message: long},
	} {
		got, err := bulk.ReadAck(bytes.NewReader(a.Marshal()))
		want := a
		want.Message = a.Message[:min(len(a.Message), 4096)]
		if err != nil || got != want {
			t.Errorf("ack %+v: read back %+v, %v", a, got, err)
		}
	}
	v := bulk.Verdict{Status: bulk.Integrity, Received: 12345, Message: "byte 3"}
	if got, err := bulk.ReadVerdict(bytes.NewReader(v.Marshal())); err != nil || got != v {
		t.Errorf("verdict %+v: read back %+v, %v", v, got, err)
	}
}

// TestParseRefuses: every field a hostile client controls is checked,
// with a reason that says what was wrong.
func TestParseRefuses(t *testing.T) {
	t.Parallel()
	setup := func(edit func(b []byte)) []byte {
		b := bulk.Setup{Buffer: 4096}.Marshal()
		edit(b)
		return b
	}
	round := func(edit func(b []byte)) []byte {
		b := bulk.Round{Directions: bulk.Download, Bytes: 10}.Marshal()
		edit(b)
		return b
	}
	for _, tc := range []struct {
		name  string
		parse func([]byte) error
		msg   []byte
		want  string
	}{
		{"short setup", parseSetup, bulk.Setup{Buffer: 1}.Marshal()[:15], "not a setup message"},
		{"setup magic", parseSetup, setup(func(b []byte) { b[0] = 'p' }), "not a setup message"},
		{"setup version", parseSetup, setup(func(b []byte) { b[1] = 2 }), "protocol version 2, this server speaks 1"},
		{"zero buffer", parseSetup, setup(func(b []byte) { binary.BigEndian.PutUint32(b[4:], 0) }), "buffer of 0 bytes"},
		{"huge buffer", parseSetup, setup(func(b []byte) { binary.BigEndian.PutUint32(b[4:], 1<<31) }), "buffer of 2147483648 bytes"},
		{"round magic", parseRound, round(func(b []byte) { b[0] = 'T' }), "not a round message"},
		{"no direction", parseRound, round(func(b []byte) { b[1] = 0 }), "round directions 0"},
		{"unknown direction", parseRound, round(func(b []byte) { b[1] = 4 }), "round directions 0x4"},
		{"zero bytes", parseRound, round(func(b []byte) { binary.BigEndian.PutUint64(b[8:], 0) }), "round of 0 bytes"},
		{"negative bytes", parseRound, round(func(b []byte) { b[8] = 0x80 }), "round of -"},
		{"negative phase", parseRound, round(func(b []byte) { b[16] = 0x80 }), "at phases -"},
	} {
		err := tc.parse(tc.msg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func parseSetup(b []byte) error { _, err := bulk.ParseSetup(b); return err }
func parseRound(b []byte) error { _, err := bulk.ParseRound(b); return err }

// TestReadRefuses: the client reads what a server (or whatever answers)
// sends without trusting its lengths.
func TestReadRefuses(t *testing.T) {
	t.Parallel()
	ack := bulk.Ack{Message: "x"}.Marshal()
	binary.BigEndian.PutUint16(ack[4:], 5000) // longer than any message
	if _, err := bulk.ReadAck(bytes.NewReader(ack)); err == nil || !strings.Contains(err.Error(), "message of 5000 bytes") {
		t.Errorf("ack with a 5000-byte message: %v", err)
	}
	if _, err := bulk.ReadAck(strings.NewReader("HTTP/1.1 400 Bad")); err == nil || !strings.Contains(err.Error(), "not an ack") {
		t.Errorf("HTTP answer: %v", err)
	}
	if _, err := bulk.ReadVerdict(strings.NewReader("V\x00")); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short verdict: %v, want unexpected EOF", err)
	}
	if _, err := bulk.ReadVerdict(bytes.NewReader(bulk.Ack{}.Marshal())); err == nil || !strings.Contains(err.Error(), "out of step") {
		t.Errorf("ack instead of a verdict: %v", err)
	}
}

// FuzzParseSetup: the server parses the setup of any client. Whatever the
// bytes, parsing does not panic, accepts only what is in range, and what
// it accepts marshals back to the same message (zero bytes where the
// layout has them aside, which the parser ignores).
func FuzzParseSetup(f *testing.F) {
	f.Add(bulk.Setup{Buffer: 4096}.Marshal())
	f.Add(bulk.Setup{KTLSTX: true, KTLSRX: true, Buffer: bulk.MaxBuffer, Source: 2}.Marshal())
	f.Add([]byte("T\x01\xff\x00\xff\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("ping"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := bulk.ParseSetup(b)
		if err != nil {
			return
		}
		if s.Buffer < 1 || s.Buffer > bulk.MaxBuffer || s.Source < 0 {
			t.Fatalf("accepted %+v from %x", s, b)
		}
		again, err := bulk.ParseSetup(s.Marshal())
		if err != nil || again != s {
			t.Fatalf("%+v re-read as %+v, %v", s, again, err)
		}
	})
}

// FuzzParseRound: the same for the rounds that follow the setup.
func FuzzParseRound(f *testing.F) {
	f.Add(bulk.Round{Directions: bulk.Upload, Bytes: 1 << 20, UploadPhase: 5}.Marshal())
	f.Add(bytes.Repeat([]byte{0xff}, 32))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := bulk.ParseRound(b)
		if err != nil {
			return
		}
		if r.Directions&^(bulk.Download|bulk.Upload) != 0 || r.Directions == 0 || r.Bytes <= 0 || r.DownloadPhase < 0 || r.UploadPhase < 0 {
			t.Fatalf("accepted %+v from %x", r, b)
		}
		if again, err := bulk.ParseRound(r.Marshal()); err != nil || again != r {
			t.Fatalf("%+v re-read as %+v, %v", r, again, err)
		}
	})
}
