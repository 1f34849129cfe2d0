package casenames

import "testing"

func TestText(t *testing.T) {
	t.Parallel()
	all := []string{
		"handshake/tls1.2/full/c1", "handshake/tls1.2/full/c8", "handshake/tls1.2/resume/c1", "handshake/tls1.2/resume/c8",
		"handshake/tls1.3/full/c1", "handshake/tls1.3/full/c8", "handshake/tls1.3/full/c1/memory",
		"handshake/tls1.3/resume/c1 [b]", "handshake/tls1.3/resume/c1 [a]",
	}
	for _, tc := range []struct {
		some []string
		want string
	}{
		{all[:1], "handshake/tls1.2/full/c1"},
		{all, "all 9 cases"},
		{all[:4], "4 cases (handshake/tls1.2/*)"},
		{[]string{all[0], all[2]}, "2 cases (handshake/tls1.2/full/c1, handshake/tls1.2/resume/c1)"},
		{[]string{all[0], all[1], all[2]}, "3 cases (handshake/tls1.2/full/*, handshake/tls1.2/resume/c1)"},
		{all[4:6], "2 cases (handshake/tls1.3/full/c1, handshake/tls1.3/full/c8)"}, // c1 is also c1/memory's
		{all[:2], "2 cases (handshake/tls1.2/full/*)"},
		{[]string{all[0], all[3]}, "2 cases (handshake/tls1.2/full/c1, handshake/tls1.2/resume/c8)"},
		{all[4:7], "3 cases (handshake/tls1.3/full/*)"},
		{all[7:], "2 cases (handshake/tls1.3/resume/*)"},
	} {
		if got := Text(all, tc.some); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.some, got, tc.want)
		}
	}
}
