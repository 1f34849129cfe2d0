package plan

import (
	"fmt"
	"strings"
)

// item reads one value from the start of s, quoted or plain, and returns
// what follows it. In a list, a plain value ends at , or ].
func item(s string, n int, inList bool) (string, string, error) {
	switch s[0] {
	case '"':
		return doubleQuoted(s, n)
	case '\'':
		return singleQuoted(s, n)
	}
	if strings.IndexByte("[]{}&*!|>%@`,", s[0]) >= 0 || strings.HasPrefix(s, "- ") || s == "-" {
		return "", "", &SyntaxError{n, fmt.Sprintf("a value starting with %q: quote it", s[0])}
	}
	end := len(s)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (inList && (c == ',' || c == ']')) || (c == '#' && i > 0 && s[i-1] == ' ') {
			end = i
			break
		}
		if inList && (c == '[' || c == '{' || c == '}') {
			return "", "", &SyntaxError{n, fmt.Sprintf("%q inside a list item: quote it", c)}
		}
		if c == ':' && (i+1 == len(s) || s[i+1] == ' ') {
			return "", "", &SyntaxError{n, `": " inside a value: quote it`}
		}
	}
	v := strings.TrimRight(s[:end], " ")
	if v == "" {
		return "", "", &SyntaxError{n, "an empty list item"}
	}
	return v, s[len(v):], nil
}

// doubleQuoted reads "..." with the escapes \" \\ \n \t \r \xNN.
func doubleQuoted(s string, n int) (string, string, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), s[i+1:], nil
		case c != '\\':
			b.WriteByte(c)
			continue
		case i+1 == len(s):
			return "", "", &SyntaxError{n, `a \ at the end of the line`}
		}
		i++
		switch s[i] {
		case '"', '\\', '/':
			b.WriteByte(s[i])
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'x':
			v, ok := hexByte(s[i+1:])
			if !ok {
				return "", "", &SyntaxError{n, `want two hex digits after \x`}
			}
			b.WriteByte(v)
			i += 2
		default:
			return "", "", &SyntaxError{n, fmt.Sprintf(`unknown escape \%c: write \\ for \`, s[i])}
		}
	}
	return "", "", &SyntaxError{n, `a "quoted value without its closing "`}
}

func hexByte(s string) (byte, bool) {
	if len(s) < 2 {
		return 0, false
	}
	var v byte
	for _, c := range []byte(s[:2]) {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | (c - '0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | (c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | (c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return v, true
}

// singleQuoted reads '...', in which two single quotes stand for one.
func singleQuoted(s string, n int) (string, string, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return b.String(), s[i+1:], nil
	}
	return "", "", &SyntaxError{n, "a 'quoted value without its closing '"}
}

// Line writes one entry as Parse reads it: "key: value" or "key: [a, b]".
func Line(key string, values []string, list bool) string {
	if !list && len(values) == 1 {
		return key + ": " + Quote(values[0], false)
	}
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = Quote(v, true)
	}
	return key + ": [" + strings.Join(parts, ", ") + "]"
}

// Quote writes a value plain when Parse reads it back unchanged, else
// double-quoted.
func Quote(v string, inList bool) string {
	if plainOK(v, inList) {
		return v
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func plainOK(v string, inList bool) bool {
	if v == "" || v[0] == ' ' || v[len(v)-1] == ' ' || v[0] == '"' || v[0] == '\'' || v[0] == '#' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == 0x7f {
			return false
		}
	}
	got, rest, err := item(v, 0, inList)
	return err == nil && got == v && rest == ""
}
