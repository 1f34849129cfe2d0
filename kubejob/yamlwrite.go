package kubejob

import (
	"strings"
	"unicode/utf8"
)

// The writers of the four scalar styles. Each folds a long line at a
// single space past bestWidth (when breaks are allowed: not in a key),
// continuing at indent, where YAML reads the line break back as that
// space.

// write copies the character at s[i:] and returns the index after it.
func (e *emitter) write(s string, i int) int {
	_, w := utf8.DecodeRuneInString(s[i:])
	e.out = append(e.out, s[i:i+w]...)
	e.column++
	return i + w
}

// writeBreak copies the line break at s[i:].
func (e *emitter) writeBreak(s string, i int) int {
	if s[i] == '\n' {
		e.putBreak()
		return i + 1
	}
	i = e.write(s, i)
	e.column = 0
	return i
}

func runeAt(s string, i int) rune {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r
}

func spaceAt(s string, i int) bool { return i < len(s) && s[i] == ' ' }

func (e *emitter) writePlain(s string, indent int, allowBreaks bool) {
	if !e.whitespace {
		e.put(' ')
	}
	spaces, breaks := false, false
	for i := 0; i < len(s); {
		switch r := runeAt(s, i); {
		case r == ' ':
			if allowBreaks && !spaces && e.column > bestWidth && !spaceAt(s, i+1) {
				e.writeIndent(indent)
				i++
			} else {
				i = e.write(s, i)
			}
			spaces = true
		case isBreak(r):
			if !breaks && r == '\n' {
				e.putBreak()
			}
			i = e.writeBreak(s, i)
			e.indention, breaks = true, true
		default:
			if breaks {
				e.writeIndent(indent)
			}
			i = e.write(s, i)
			e.indention, spaces, breaks = false, false, false
		}
	}
	e.whitespace, e.indention = false, false
}

func (e *emitter) writeSingle(s string, indent int, allowBreaks bool) {
	e.indicator("'", true, false, false)
	spaces, breaks := false, false
	for i := 0; i < len(s); {
		switch r := runeAt(s, i); {
		case r == ' ':
			if allowBreaks && !spaces && e.column > bestWidth && i > 0 && i < len(s)-1 && !spaceAt(s, i+1) {
				e.writeIndent(indent)
				i++
			} else {
				i = e.write(s, i)
			}
			spaces = true
		case isBreak(r):
			if !breaks && r == '\n' {
				e.putBreak()
			}
			i = e.writeBreak(s, i)
			e.indention, breaks = true, true
		default:
			if breaks {
				e.writeIndent(indent)
			}
			if r == '\'' {
				e.put('\'')
			}
			i = e.write(s, i)
			e.indention, spaces, breaks = false, false, false
		}
	}
	e.indicator("'", false, false, false)
	e.whitespace, e.indention = false, false
}

// doubleEscapes are the short escapes of the double-quoted style.
var doubleEscapes = map[rune]byte{0: '0', 7: 'a', 8: 'b', 9: 't', 0x0A: 'n', 0x0B: 'v', 0x0C: 'f', 0x0D: 'r',
	0x1B: 'e', '"': '"', '\\': '\\', 0x85: 'N', 0xA0: '_', 0x2028: 'L', 0x2029: 'P'}

func (e *emitter) writeDouble(s string, indent int, allowBreaks bool) {
	e.indicator(`"`, true, false, false)
	// The encoder escapes every character of a string that begins with
	// a byte-order mark; so does this.
	bom := strings.HasPrefix(s, "\uFEFF")
	spaces := false
	for i := 0; i < len(s); {
		r := runeAt(s, i)
		switch {
		case bom || !printable(r) || isBreak(r) || r == '"' || r == '\\':
			e.escape(r)
			i += utf8.RuneLen(r)
			spaces = false
		case r == ' ':
			if allowBreaks && !spaces && e.column > bestWidth && i > 0 && i < len(s)-1 {
				e.writeIndent(indent)
				if spaceAt(s, i+1) {
					e.put('\\')
				}
				i++
			} else {
				i = e.write(s, i)
			}
			spaces = true
		default:
			i = e.write(s, i)
			spaces = false
		}
	}
	e.indicator(`"`, false, false, false)
	e.whitespace, e.indention = false, false
}

func (e *emitter) escape(r rune) {
	e.put('\\')
	if c, ok := doubleEscapes[r]; ok {
		e.put(c)
		return
	}
	digits := 8
	switch {
	case r <= 0xFF:
		e.put('x')
		digits = 2
	case r <= 0xFFFF:
		e.put('u')
		digits = 4
	default:
		e.put('U')
	}
	for k := (digits - 1) * 4; k >= 0; k -= 4 {
		e.put("0123456789ABCDEF"[(r>>k)&0x0F])
	}
}

// writeLiteral writes s, which holds a line feed, as a block: |, an
// indentation indicator if it begins with a space or a break, and a
// chomping indicator for how it ends.
func (e *emitter) writeLiteral(s string, indent int) {
	e.indicator("|", true, false, false)
	if s[0] == ' ' || isBreak(runeAt(s, 0)) {
		e.indicator("2", false, false, false)
	}
	last, w := utf8.DecodeLastRuneInString(s)
	switch {
	case !isBreak(last):
		e.indicator("-", false, false, false)
	case len(s) == w:
		e.indicator("+", false, false, false)
	default:
		if before, _ := utf8.DecodeLastRuneInString(s[:len(s)-w]); isBreak(before) {
			e.indicator("+", false, false, false)
		}
	}
	e.putBreak()
	e.indention, e.whitespace = true, true
	breaks := true
	for i := 0; i < len(s); {
		if isBreak(runeAt(s, i)) {
			i = e.writeBreak(s, i)
			e.indention, breaks = true, true
			continue
		}
		if breaks {
			e.writeIndent(indent)
		}
		i = e.write(s, i)
		e.indention, breaks = false, false
	}
}
