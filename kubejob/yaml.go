package kubejob

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode"
)

// Manifest returns the Job for s as YAML, for kubectl apply -f -.
func Manifest(s Spec) ([]byte, error) {
	job, err := New(s)
	if err != nil {
		return nil, err
	}
	return Marshal(job)
}

// Marshal writes job as YAML through its JSON form, so that the field
// names and omissions are those of the struct tags, which follow the
// API's. The YAML is written as the API's own tools write it (keys
// sorted, block style, two-space indents, lines folded past 80 columns,
// each string quoted just when YAML would read it as something else),
// so that the manifest is the same, byte for byte, as it always was.
func Marshal(job *Job) ([]byte, error) {
	j, err := json.Marshal(job)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var doc map[string]any
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	e := &emitter{whitespace: true, indention: true}
	if err := e.mapping(doc, 0); err != nil {
		return nil, err
	}
	e.writeIndent(0) // the document ends with a line break
	return e.out, nil
}

// emitter writes YAML block style. Its state is the YAML emitter's own:
// the column, whether the last thing written was whitespace, and whether
// the line holds indentation only; where a scalar may fold and whether a
// line break is needed follow from them.
type emitter struct {
	out        []byte
	column     int
	whitespace bool
	indention  bool
}

// node writes v, a value in a mapping (inMapping) or a sequence whose
// indent is indent.
func (e *emitter) node(v any, indent int, inMapping bool) error {
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			e.indicator("{", true, true, false)
			e.indicator("}", false, false, false)
			return nil
		}
		return e.mapping(v, indent+2)
	case []any:
		if len(v) == 0 {
			e.indicator("[", true, true, false)
			e.indicator("]", false, false, false)
			return nil
		}
		// A sequence that is a mapping's value is not indented further:
		// its dashes line up with the key.
		if inMapping && !e.indention {
			return e.sequence(v, indent)
		}
		return e.sequence(v, indent+2)
	case string:
		e.scalar(v, indent+2, false)
	case json.Number:
		// The manifest's numbers are all integers, which YAML writes as
		// JSON does.
		if _, err := v.Int64(); err != nil {
			return fmt.Errorf("kubejob: cannot write %s as a YAML integer", v)
		}
		e.plain(v.String())
	case bool:
		e.plain(strconv.FormatBool(v))
	case nil:
		e.plain("null")
	default:
		return fmt.Errorf("kubejob: cannot write %T as YAML", v)
	}
	return nil
}

func (e *emitter) mapping(m map[string]any, indent int) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, keyOrder)
	for _, k := range keys {
		e.writeIndent(indent)
		e.scalar(k, indent+2, true)
		e.indicator(":", false, false, false)
		if err := e.node(m[k], indent, true); err != nil {
			return err
		}
	}
	return nil
}

func (e *emitter) sequence(items []any, indent int) error {
	for _, v := range items {
		e.writeIndent(indent)
		e.indicator("-", true, false, true)
		if err := e.node(v, indent, false); err != nil {
			return err
		}
	}
	return nil
}

// plain writes a number, a boolean or null, which need no quoting.
func (e *emitter) plain(s string) {
	if !e.whitespace {
		e.put(' ')
	}
	e.out = append(e.out, s...)
	e.column += len(s)
	e.whitespace, e.indention = false, false
}

func (e *emitter) put(b byte) {
	e.out = append(e.out, b)
	e.column++
}

func (e *emitter) putBreak() {
	e.out = append(e.out, '\n')
	e.column = 0
}

// writeIndent starts a line at indent, unless the line so far is just
// that indentation.
func (e *emitter) writeIndent(indent int) {
	if !e.indention || e.column > indent || e.column == indent && !e.whitespace {
		e.putBreak()
	}
	for e.column < indent {
		e.put(' ')
	}
	e.whitespace, e.indention = true, true
}

func (e *emitter) indicator(s string, needWhitespace, isWhitespace, isIndention bool) {
	if needWhitespace && !e.whitespace {
		e.put(' ')
	}
	e.out = append(e.out, s...)
	e.column += len(s)
	e.whitespace = isWhitespace
	e.indention = e.indention && isIndention
}

// keyOrder sorts keys as the YAML encoder the manifest was first written
// with does: letters after other characters, runs of digits by value.
func keyOrder(a, b string) int {
	ar, br := []rune(a), []rune(b)
	for i := 0; i < len(ar) && i < len(br); i++ {
		if ar[i] == br[i] {
			continue
		}
		al, bl := unicode.IsLetter(ar[i]), unicode.IsLetter(br[i])
		switch {
		case al && bl:
			return cmpInt(int(ar[i]), int(br[i]))
		case al:
			return 1
		case bl:
			return -1
		}
		return digitRunOrder(ar, br, i)
	}
	return cmpInt(len(ar), len(br))
}

// digitRunOrder orders a and b, which differ first at i by a character
// that is not a letter, by the numbers that start there.
func digitRunOrder(ar, br []rune, i int) int {
	var an, bn int64
	if ar[i] == '0' || br[i] == '0' {
		for j := i - 1; j >= 0 && unicode.IsDigit(ar[j]); j-- {
			if ar[j] != '0' {
				an, bn = 1, 1
				break
			}
		}
	}
	ai, bi := i, i
	for ; ai < len(ar) && unicode.IsDigit(ar[ai]); ai++ {
		an = an*10 + int64(ar[ai]-'0')
	}
	for ; bi < len(br) && unicode.IsDigit(br[bi]); bi++ {
		bn = bn*10 + int64(br[bi]-'0')
	}
	switch {
	case an != bn:
		return cmpInt64(an, bn)
	case ai != bi:
		return cmpInt(ai, bi)
	}
	return cmpInt(int(ar[i]), int(br[i]))
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
