package results

import "testing"

func TestPrintable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, want, lines string
	}{
		{"plain", "handshake/tls1.3/full/c1 µs", "handshake/tls1.3/full/c1 µs", ""},
		{"OSC title", "a\x1b]0;pwned\x07b", `a\x1b]0;pwned\x07b`, ""},
		{"CSI clear", "\x1b[2J", `\x1b[2J`, ""},
		{"C1 CSI", "x\u009b2Jy", `x\x9b2Jy`, ""},
		{"DEL", "a\x7fb", `a\x7fb`, ""},
		{"not UTF-8", "a\x9b\xffb", `a\x9b\xffb`, ""},
		{"bidi override", "evil\u202eexe.txt", `evil\u202eexe.txt`, ""},
		{"bidi isolate", "\u2066x\u2069", `\u2066x\u2069`, ""},
		{"tab newline", "a\tb\nc\r", `a\x09b\x0ac\x0d`, "a\tb\nc\\x0d"},
		{"replacement char kept", "\ufffd", "\ufffd", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Printable(tc.in); got != tc.want {
				t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
			}
			lines := tc.lines
			if lines == "" {
				lines = tc.want
			}
			if got := PrintableLines(tc.in); got != lines {
				t.Errorf("PrintableLines(%q) = %q, want %q", tc.in, got, lines)
			}
		})
	}
}
