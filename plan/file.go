package plan

import (
	"fmt"
	"strings"
)

// A plan file is a strict subset of YAML, read line by line in one pass:
//
//	# a comment, alone or after a value
//	tls: 1.3                  # a value as on the command line
//	resume: [off, on]         # a list (or the comma text off,on)
//	key:                      # a list, one item a line
//	  - rsa-2048
//	  - ecdsa-p256
//	sni: "localhost"          # quoted: "..." (\" \\ \n \t \xNN) or '...' ('' for ')
//
// Keys start their line; nothing is nested. Anything else (anchors, tags,
// multi-line strings, maps) is refused with its line, never guessed at.

// Entry is one key of a plan file and its values.
type Entry struct {
	Key    string
	Values []string // one for a scalar
	IsList bool     // written as a list
	Line   int      // where the key is, from 1
}

// SyntaxError is a line of a plan file that is not in the subset read.
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Parse reads a plan file. A key given twice is refused.
func Parse(data []byte) ([]Entry, error) {
	var out []Entry
	seen := map[string]int{}
	open := -1 // the entry whose block list is being read
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		line = strings.TrimRight(line, " \r")
		body := strings.TrimLeft(line, " ")
		switch {
		case body == "" || body[0] == '#' || (len(out) == 0 && line == "---"):
			continue
		case strings.HasPrefix(body, "\t") || strings.HasPrefix(line, "\t"):
			return nil, &SyntaxError{n, "a tab: indent with spaces"}
		case open >= 0 && (body == "-" || strings.HasPrefix(body, "- ")):
			v, err := scalar(strings.TrimLeft(body[1:], " "), n, false)
			if err != nil {
				return nil, err
			}
			out[open].Values = append(out[open].Values, v)
			continue
		case body != line:
			return nil, &SyntaxError{n, "an indented line: keys start their line, and nothing is nested"}
		}
		if open >= 0 && len(out[open].Values) == 0 {
			return nil, &SyntaxError{out[open].Line, out[open].Key + ": no value"}
		}
		open = -1
		e, err := entry(line, n)
		if err != nil {
			return nil, err
		}
		if first, ok := seen[e.Key]; ok {
			return nil, &SyntaxError{n, fmt.Sprintf("%s is given twice (first on line %d)", e.Key, first)}
		}
		seen[e.Key] = n
		out = append(out, e)
		if e.IsList && e.Values == nil {
			open = len(out) - 1
		}
	}
	if open >= 0 && len(out[open].Values) == 0 {
		return nil, &SyntaxError{out[open].Line, out[open].Key + ": no value"}
	}
	return out, nil
}

// entry reads a "key: value" line.
func entry(line string, n int) (Entry, error) {
	key, rest, ok := strings.Cut(line, ":")
	if !ok || !validKey(key) || (rest != "" && rest[0] != ' ') {
		return Entry{}, &SyntaxError{n, `want "key: value", the key in lower case (e.g. tls: 1.3)`}
	}
	e := Entry{Key: key, Line: n}
	rest = strings.TrimLeft(rest, " ")
	switch {
	case rest == "" || rest[0] == '#':
		e.IsList = true // a block list follows
		return e, nil
	case rest[0] == '[':
		vals, err := flowList(rest, n)
		e.Values, e.IsList = vals, true
		return e, err
	}
	v, err := scalar(rest, n, false)
	e.Values = []string{v}
	return e, err
}

func validKey(k string) bool {
	if k == "" || k[0] == '-' {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// flowList reads "[a, b, "c"]" and what may follow it: a comment.
func flowList(s string, n int) ([]string, error) {
	s = s[1:]
	var vals []string
	for {
		s = strings.TrimLeft(s, " ")
		if s == "" {
			return nil, &SyntaxError{n, "a list without its ]: write a list on one line, or one item a line"}
		}
		if s[0] == ']' && len(vals) == 0 {
			return nil, &SyntaxError{n, "an empty list: leave the key out for its default"}
		}
		v, rest, err := item(s, n, true)
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
		rest = strings.TrimLeft(rest, " ")
		switch {
		case strings.HasPrefix(rest, ","):
			s = rest[1:]
		case strings.HasPrefix(rest, "]"):
			return vals, trailer(rest[1:], n)
		case rest == "":
			return nil, &SyntaxError{n, "a list without its ]: write a list on one line, or one item a line"}
		default:
			return nil, &SyntaxError{n, "in a list, want , or ] after an item"}
		}
	}
}

// scalar reads a whole value: an item, then at most a comment.
func scalar(s string, n int, inList bool) (string, error) {
	if s == "" {
		return "", &SyntaxError{n, "a list item without a value"}
	}
	v, rest, err := item(s, n, inList)
	if err != nil {
		return "", err
	}
	return v, trailer(rest, n)
}

// trailer checks that only a comment follows a value.
func trailer(rest string, n int) error {
	if t := strings.TrimLeft(rest, " "); t == "" || (t[0] == '#' && len(t) < len(rest)) {
		return nil
	}
	return &SyntaxError{n, "more after the value: quote a value that holds it"}
}
