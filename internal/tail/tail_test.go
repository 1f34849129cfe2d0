package tail

import (
	"strings"
	"testing"
)

func TestBufferKeepsTheEnd(t *testing.T) {
	t.Parallel()
	b := &Buffer{Max: 16}
	b.Write([]byte("first line that is long\n"))
	b.Write([]byte("error: port in use\n\n"))
	if got := b.String(); len(got) != 16 || !strings.HasSuffix(got, "in use\n\n") {
		t.Errorf("kept %q, want the last 16 bytes", got)
	}
	if got := b.LastLine(); got != "port in use" && !strings.HasSuffix(got, "port in use") {
		t.Errorf("last line %q", got)
	}
	if (&Buffer{Max: 4}).LastLine() != "" {
		t.Error("empty buffer has a last line")
	}
}

// TestBufferManyWrites: the end is kept across many compactions, and the
// buffer stays within twice Max.
func TestBufferManyWrites(t *testing.T) {
	t.Parallel()
	b := &Buffer{Max: 10}
	var all strings.Builder
	for i := range 100 {
		s := strings.Repeat(string(rune('a'+i%26)), i%13)
		if n, _ := b.Write([]byte(s)); n != len(s) {
			t.Fatalf("Write = %d, want %d", n, len(s))
		}
		all.WriteString(s)
		want := all.String()[max(0, all.Len()-10):]
		if got := b.String(); got != want {
			t.Fatalf("after %d writes kept %q, want %q", i+1, got, want)
		}
		if cap(b.buf) > 20 {
			t.Fatalf("buffer grew to %d", cap(b.buf))
		}
	}
}
