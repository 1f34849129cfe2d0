package results

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Printable is s with every character that could drive a terminal or
// disguise text written as a visible escape: C0 controls (tab and newline
// included), DEL, C1 controls (0x80-0x9f), the bidirectional controls
// that reorder what a terminal or browser shows (U+061C, U+200E, U+200F,
// U+202A-U+202E, U+2066-U+2069), and bytes that are not UTF-8. ESC is
// shown as \x1b, U+202E as \u202e. A case name, a note or a reason can
// carry a hostile server's text (an alert, a certificate's subject) or
// come from a hostile results file; whatever shows it to a person passes
// it through here. s is returned as it is when nothing needs escaping.
func Printable(s string) string { return printable(s, false) }

// PrintableLines is [Printable] keeping tab and newline, for text whose
// lines they lay out (a page's paragraph, a cell of a CSV file).
func PrintableLines(s string) string { return printable(s, true) }

func printable(s string, lines bool) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if escaped(r, n, lines) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s) + 8)
	sb.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case !escaped(r, n, lines):
			sb.WriteString(s[i : i+n])
		case r == utf8.RuneError: // a byte that is not UTF-8
			hexByte(&sb, s[i])
			n = 1
		case r < 0x100:
			hexByte(&sb, byte(r))
		default:
			sb.WriteString(`\u`)
			sb.WriteString(strconv.FormatUint(uint64(r), 16))
		}
		i += n
	}
	return sb.String()
}

func hexByte(sb *strings.Builder, b byte) {
	const digits = "0123456789abcdef"
	sb.WriteString(`\x`)
	sb.WriteByte(digits[b>>4])
	sb.WriteByte(digits[b&15])
}

// escaped reports whether the rune r, n bytes long in its string, is
// written as an escape.
func escaped(r rune, n int, lines bool) bool {
	switch {
	case r == utf8.RuneError && n <= 1:
		return true // not UTF-8
	case lines && (r == '\t' || r == '\n'):
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
