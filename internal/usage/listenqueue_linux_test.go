package usage

import (
	"strings"
	"testing"
)

// TestParseNetstat: the two counters are found by name among the TcpExt
// counters, wherever the kernel puts them; a file without them, or
// whose lines disagree, is an error, not zero.
func TestParseNetstat(t *testing.T) {
	t.Parallel()
	const ipExt = "IpExt: InNoRoutes InTruncatedPkts\nIpExt: 0 0\n"
	for _, tt := range []struct {
		name, in string
		want     ListenQueue
		err      string
	}{
		{"kernel order", "TcpExt: SyncookiesSent ListenOverflows ListenDrops TCPFastOpenListenOverflow\nTcpExt: 3 766 770 9\n" + ipExt,
			ListenQueue{Overflows: 766, Drops: 770}, ""},
		{"other order", ipExt + "TcpExt: ListenDrops X ListenOverflows\nTcpExt: 5 1 4\n", ListenQueue{Overflows: 4, Drops: 5}, ""},
		{"missing", "TcpExt: SyncookiesSent\nTcpExt: 1\n", ListenQueue{}, "no ListenOverflows"},
		{"no tcpext", ipExt, ListenQueue{}, "no TcpExt"},
		{"lines disagree", "TcpExt: ListenOverflows ListenDrops\nTcpExt: 1\n", ListenQueue{}, "2 names and 1 values"},
		{"not a number", "TcpExt: ListenOverflows ListenDrops\nTcpExt: x 1\n", ListenQueue{}, "ListenOverflows"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseNetstat([]byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestReadListenQueue: this machine's counters can be read, and they do
// not go back.
func TestReadListenQueue(t *testing.T) {
	t.Parallel()
	a, err := ReadListenQueue()
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadListenQueue()
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := b.Sub(a); !ok || d.Drops < 0 {
		t.Fatalf("counters went back: %+v then %+v", a, b)
	}
	if a.Drops < a.Overflows {
		t.Errorf("%+v: every overflow is also a drop", a)
	}
	if _, ok := a.Sub(ListenQueue{Overflows: a.Overflows + 1}); ok {
		t.Error("a count that went back is known")
	}
}
