package kubejob

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// A string in the manifest is written plain when YAML reads it back as
// that string, and quoted otherwise, as the YAML encoder the manifest was
// first written with does: a user's "yes", "0x10", "- x", "a: b" or
// "#1" reach the pod as typed. The choices and their details (where a
// long line folds, which characters are escaped) follow that encoder's,
// so that the bytes are the same as they always were.

type scalarStyle int

const (
	stylePlain scalarStyle = iota
	styleSingle
	styleDouble
	styleLiteral
)

// bestWidth is the column past which a scalar folds at a space.
const bestWidth = 80

// scalar writes s, a mapping's key (simpleKey) or a value at indent.
func (e *emitter) scalar(s string, indent int, simpleKey bool) {
	a := analyzeScalar(s)
	style := styleDouble
	switch {
	case strings.Contains(s, "\n"):
		style = styleLiteral
	case readsAsString(s) && !isBase60Float(s):
		style = stylePlain
	}
	if simpleKey && a.multiline {
		style = styleDouble
	}
	if style == stylePlain && (!a.plain || s == "" && simpleKey) {
		style = styleSingle
	}
	if style == styleSingle && !a.single {
		style = styleDouble
	}
	if style == styleLiteral && (!a.block || simpleKey) {
		style = styleDouble
	}
	switch style {
	case stylePlain:
		e.writePlain(s, indent, !simpleKey)
	case styleSingle:
		e.writeSingle(s, indent, !simpleKey)
	case styleDouble:
		e.writeDouble(s, indent, !simpleKey)
	default:
		e.writeLiteral(s, indent)
	}
}

// scalarAnalysis says which styles can carry a string unchanged (in
// block context).
type scalarAnalysis struct {
	multiline, plain, single, block bool
}

// analyzeScalar looks for what each style cannot carry: indicators that
// would start another node, leading or trailing space, line breaks, and
// characters that need escapes.
func analyzeScalar(s string) scalarAnalysis {
	if s == "" {
		return scalarAnalysis{plain: true, single: true}
	}
	indicators := strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...")
	var special, lineBreaks, leadSpace, leadBreak, trailSpace, trailBreak, breakSpace, spaceBreak bool
	var prevSpace, prevBreak bool
	precededByWhitespace := true
	for i, r := range s {
		w := utf8.RuneLen(r)
		followedByWhitespace := i+w >= len(s) || s[i+w] == ' ' || s[i+w] == '\t'
		indicators = indicators || isIndicator(s, i, precededByWhitespace, followedByWhitespace)
		if !printable(r) {
			special = true
		}
		switch {
		case r == ' ':
			leadSpace = leadSpace || i == 0
			trailSpace = trailSpace || i+w == len(s)
			breakSpace = breakSpace || prevBreak
			prevSpace, prevBreak = true, false
		case isBreak(r):
			lineBreaks = true
			leadBreak = leadBreak || i == 0
			trailBreak = trailBreak || i+w == len(s)
			spaceBreak = spaceBreak || prevSpace
			prevSpace, prevBreak = false, true
		default:
			prevSpace, prevBreak = false, false
		}
		precededByWhitespace = r == ' ' || r == '\t' || r == 0 || isBreak(r)
	}
	a := scalarAnalysis{multiline: lineBreaks, plain: true, single: true, block: true}
	if leadSpace || leadBreak || trailSpace || trailBreak || lineBreaks || indicators {
		a.plain = false
	}
	if trailSpace {
		a.block = false
	}
	if breakSpace {
		a.plain, a.single = false, false
	}
	if spaceBreak || special {
		a.plain, a.single, a.block = false, false, false
	}
	return a
}

// isIndicator reports whether the byte at i would, unquoted in block
// context, begin another node, a comment or a mapping.
func isIndicator(s string, i int, precededByWhitespace, followedByWhitespace bool) bool {
	c := s[i]
	if i == 0 {
		switch c {
		case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
			return true
		case '?', ':', '-':
			return followedByWhitespace
		}
		return false
	}
	switch c {
	case ':':
		return followedByWhitespace
	case '#':
		return precededByWhitespace
	}
	return false
}

// printable is YAML's printable set, less what the encoder escapes: no
// control characters but the line feed, no byte-order mark, nothing
// beyond the Basic Multilingual Plane.
func printable(r rune) bool {
	return r == '\n' || 0x20 <= r && r <= 0x7E || 0xA0 <= r && r <= 0xD7FF ||
		0xE000 <= r && r <= 0xFFFD && r != 0xFEFF
}

func isBreak(r rune) bool {
	return r == '\r' || r == '\n' || r == 0x85 || r == 0x2028 || r == 0x2029
}

// readsAsString reports whether s, unquoted, reads back as a string:
// not a boolean (yes, on, n...), null (~, null, empty), number (in any
// base, with underscores, .inf, .nan) or timestamp.
func readsAsString(s string) bool {
	if s == "" {
		return false
	}
	// YAML reads a plain scalar as something else only if it begins
	// with one of these (the merge key, <<, is read as a string too).
	c := s[0]
	if strings.IndexByte("+-0123456789yYnNtTfFoO~.", c) < 0 {
		return true
	}
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON",
		"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF",
		"~", "null", "Null", "NULL", ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF",
		"+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return false
	}
	switch {
	case c == '.':
		_, err := strconv.ParseFloat(s, 64)
		return err != nil
	case c == '+' || c == '-' || '0' <= c && c <= '9':
		return !readsAsNumber(s)
	}
	return true
}

var yamlFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// readsAsNumber reports whether s, which begins with a sign or a digit,
// reads as a timestamp, an integer or a float.
func readsAsNumber(s string) bool {
	if isTimestamp(s) {
		return true
	}
	plain := strings.ReplaceAll(s, "_", "")
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return true
	}
	if yamlFloat.MatchString(plain) {
		if _, err := strconv.ParseFloat(plain, 64); err == nil {
			return true
		}
	}
	if rest, ok := strings.CutPrefix(plain, "0b"); ok {
		_, err := strconv.ParseInt(rest, 2, 64)
		_, uerr := strconv.ParseUint(rest, 2, 64)
		return err == nil || uerr == nil
	}
	if rest, ok := strings.CutPrefix(plain, "-0b"); ok {
		_, err := strconv.ParseInt("-"+rest, 2, 64)
		return err == nil
	}
	return false
}

// isTimestamp reports whether s reads as a YAML timestamp.
func isTimestamp(s string) bool {
	i := digitsFrom(s, 0)
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, layout := range []string{"2006-1-2T15:4:5.999999999Z07:00", "2006-1-2t15:4:5.999999999Z07:00", "2006-1-2 15:4:5.999999999", "2006-1-2"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

var base60Float = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`)

// isBase60Float reports whether s reads as a sexagesimal number (1:30)
// in YAML 1.1, as older parsers still do.
func isBase60Float(s string) bool {
	if s == "" || !(s[0] == '+' || s[0] == '-' || '0' <= s[0] && s[0] <= '9') || !strings.Contains(s, ":") {
		return false
	}
	return base60Float.MatchString(s)
}
