package probe

import (
	"strings"
	"testing"
	"time"
)

// TestJudgeReplay: what each answer to a replayed flight is taken for,
// and what is left not tested.
func TestJudgeReplay(t *testing.T) {
	t.Parallel()
	hs := func(short int) PacketCounts {
		return PacketCounts{Datagrams: 2, Bytes: 1300, Initial: 1, Handshake: 1, Short: short, ShortBytes: 99 * short}
	}
	later := func(c PacketCounts) *PacketCounts { return &c }
	acked := PacketCounts{Datagrams: 1, Bytes: 35, Short: 1, ShortBytes: 35, ShortAlone: 1}
	origAccepted := PacketCounts{Datagrams: 3, Initial: 1, Handshake: 1, Short: 2, ShortBytes: 140}
	base0, base1 := hs(0), hs(1)
	tests := []struct {
		name string
		ans  replayAnswer
		orig PacketCounts
		base *PacketCounts
		want string // status:substring
	}{
		{"ignored altogether", replayAnswer{Later: later(PacketCounts{}), Apart: 1}, origAccepted, &base1,
			"not tested:ignored the replayed flight altogether"},
		{"0-RTT alone acknowledged", replayAnswer{Handshake: hs(1), Later: later(acked), Apart: 1}, origAccepted, &base1,
			"yes:it accepted the replayed early data"},
		{"0-RTT alone acknowledged amid the handshake sent again", replayAnswer{Handshake: hs(1),
			Later: later(PacketCounts{Datagrams: 3, Initial: 2, Short: 1, ShortAlone: 1}), Apart: 1}, origAccepted, &base1,
			"yes:it accepted the replayed early data"},
		{"0-RTT alone not acknowledged", replayAnswer{Handshake: hs(1), Later: later(PacketCounts{}), Apart: 1}, origAccepted, &base1,
			"no:neither acknowledged nor answered the replayed 0-RTT packets within 100ms"},
		{"0-RTT alone not acknowledged, the handshake sent again", replayAnswer{Handshake: hs(1), Later: later(PacketCounts{Datagrams: 2, Initial: 2}), Apart: 1}, origAccepted, &base1,
			"no:neither acknowledged nor answered the replayed 0-RTT packets within 100ms"},
		{"1-RTT only with the handshake sent again", replayAnswer{Handshake: hs(0), Later: later(PacketCounts{Datagrams: 1, Handshake: 1, Short: 1}), Apart: 1}, origAccepted, &base1,
			"not tested:came with packets of its handshake"},
		{"a Retry", replayAnswer{Handshake: PacketCounts{Datagrams: 1, Retry: 1}}, origAccepted, &base1,
			"no:a Retry"},
		{"only an acknowledgement of the Initial", replayAnswer{Handshake: PacketCounts{Datagrams: 1, Initial: 1}}, origAccepted, &base1,
			"not tested:no Handshake packet"},
		{"no 1-RTT even for accepted early data", replayAnswer{Handshake: hs(0)}, hs(0), &base0,
			"not tested:sends no 1-RTT packet before the client's Finished even for early data it accepts"},
		{"together: no 1-RTT", replayAnswer{Handshake: hs(0)}, origAccepted, &base1,
			"no:no 1-RTT packet"},
		{"together: 1-RTT never sent without early data", replayAnswer{Handshake: hs(1)}, origAccepted, &base0,
			"yes:which it does not send before the client's Finished without early data"},
		{"together: 1-RTT also sent without early data", replayAnswer{Handshake: hs(2)}, origAccepted, &base1,
			"not tested:cannot tell"},
		{"together: no baseline", replayAnswer{Handshake: hs(1)}, origAccepted, nil,
			"not tested:cannot tell"},
	}
	for _, tt := range tests {
		f := judgeReplay(tt.ans, tt.orig, tt.base, 100*time.Millisecond)
		status, sub, _ := strings.Cut(tt.want, ":")
		if string(f.Status) != status || !strings.Contains(f.Detail, sub) {
			t.Errorf("%s: %s: %s\nwant %s containing %q", tt.name, f.Status, f.Detail, status, sub)
		}
		if f.Detail != "" && !strings.Contains(f.Detail, "to the same flight the first time") {
			t.Errorf("%s: the detail lacks the calibration: %s", tt.name, f.Detail)
		}
	}
}

func TestPacketCountsDescribe(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		c    PacketCounts
		want string
	}{
		{PacketCounts{}, "nothing"},
		{PacketCounts{Datagrams: 2, Bytes: 1300, Initial: 1, Handshake: 1}, "2 datagrams (1300 bytes): 1 Initial, 1 Handshake, no 1-RTT"},
		{PacketCounts{Datagrams: 1, Bytes: 35, Short: 1, ShortBytes: 35, Other: 2}, "1 datagram (35 bytes): 1 1-RTT (35 bytes), 2 other"},
	} {
		if got := tt.c.describe(); got != tt.want {
			t.Errorf("describe(%+v) = %q, want %q", tt.c, got, tt.want)
		}
	}
}
