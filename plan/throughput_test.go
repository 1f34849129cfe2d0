package plan

import "testing"

func TestParseSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int64
		err  bool
	}{
		{"4096", 4096, false}, {"4k", 4096, false}, {"16K", 16384, false}, {"64KiB", 65536, false},
		{"1m", 1 << 20, false}, {"64MiB", 64 << 20, false}, {"2g", 2 << 30, false}, {"100b", 100, false},
		{"0", 0, true}, {"-4k", 0, true}, {"4x", 0, true}, {"", 0, true}, {"k", 0, true},
	} {
		got, err := ParseSize(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v", tc.in, got, err)
		}
	}
	if _, err := ParseBuffer("2m"); err == nil {
		t.Error("ParseBuffer(2m): want an error (largest is 1m)")
	}
	if p, err := ParseSource("file:/tmp/x"); err != nil || p != "/tmp/x" {
		t.Errorf("ParseSource: %q %v", p, err)
	}
	if _, err := ParseSource("/tmp/x"); err == nil {
		t.Error("ParseSource without file: prefix: want an error")
	}
}
