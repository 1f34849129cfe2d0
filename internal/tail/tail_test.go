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
