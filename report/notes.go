package report

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/report/internal/casenames"
	"github.com/tlsbench/tlsbench/results"
)

// A run of many cases says the same thing of many of them (other load on
// the machine, a case time that ran out): the notes are grouped, one line
// per fact, naming the cases it holds for. Notes that differ only in
// their numbers are one fact, said with each number's range.

// noteItems are the records' notes, grouped.
func noteItems(recs []results.Record) []string {
	labels := make([]string, len(recs))
	var notes []caseText
	for i := range recs {
		labels[i] = CaseLabel(&recs[i])
		for _, n := range recs[i].Notes {
			notes = append(notes, caseText{labels[i], n})
		}
	}
	return groupByCase(labels, notes)
}

// caseText is a line said of one case.
type caseText struct{ label, text string }

// noteGroup is the notes of one shape.
type noteGroup struct {
	shape  string     // the text, each number a slot
	labels []string   // the cases, in order
	nums   [][]string // each note's numbers, slot by slot
}

// groupByCase writes notes as "case: text" lines, those that say the
// same of several cases once, "3 cases (a/*, b/c1): text", with the
// range of each number in which they differ ("18-66%"). all are the
// labels of every case of the report, in order, of which the cases
// named are described compactly.
func groupByCase(all []string, notes []caseText) []string {
	var groups []*noteGroup
	byShape := map[string]*noteGroup{}
	for _, n := range notes {
		shape, nums := numberShape(n.text)
		g := byShape[shape]
		if g == nil {
			g = &noteGroup{shape: shape}
			byShape[shape] = g
			groups = append(groups, g)
		}
		g.labels = append(g.labels, n.label)
		g.nums = append(g.nums, nums)
	}
	var items []string
	for _, g := range groups {
		distinct := slices.Compact(slices.Clone(g.labels))
		if len(g.labels) == 1 || len(distinct) != len(g.labels) {
			// One case, or a case saying it twice: each as it was.
			for i, l := range g.labels {
				items = append(items, l+": "+fillShape(g.shape, g.nums[i]))
			}
			continue
		}
		items = append(items, casenames.Text(all, g.labels)+": "+fillShape(g.shape, ranges(g.nums)))
	}
	return items
}

// numberShape is text with each number (a decimal standing alone, not
// part of a name like tls1.3, an address or a version) replaced by a
// slot, and the numbers.
func numberShape(text string) (string, []string) {
	var b strings.Builder
	var nums []string
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	for i := 0; i < len(text); {
		c := text[i]
		if !isDigit(c) || i > 0 && !numberBoundary(text[i-1]) {
			b.WriteByte(c)
			i++
			continue
		}
		j := i
		dots := 0
		for j < len(text) && (isDigit(text[j]) || (text[j] == '.' || text[j] == ':') && j+1 < len(text) && isDigit(text[j+1])) {
			if text[j] == '.' || text[j] == ':' {
				dots++
				if text[j] == ':' {
					dots++
				}
			}
			j++
		}
		if dots > 1 {
			b.WriteString(text[i:j]) // an address, a version
		} else {
			b.WriteByte(0)
			nums = append(nums, text[i:j])
		}
		i = j
	}
	return b.String(), nums
}

// numberBoundary reports whether a number may start after c.
func numberBoundary(c byte) bool {
	switch {
	case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return false
	}
	return !strings.ContainsRune("._:/-", rune(c))
}

// fillShape puts nums in the slots of shape.
func fillShape(shape string, nums []string) string {
	var b strings.Builder
	k := 0
	for i := 0; i < len(shape); i++ {
		if shape[i] == 0 && k < len(nums) {
			b.WriteString(nums[k])
			k++
			continue
		}
		b.WriteByte(shape[i])
	}
	return b.String()
}

// ranges is, slot by slot, the number all notes share, or the range of
// theirs, "18-66".
func ranges(nums [][]string) []string {
	out := make([]string, len(nums[0]))
	for k := range out {
		lo, hi := nums[0][k], nums[0][k]
		for _, n := range nums[1:] {
			if num(n[k]) < num(lo) {
				lo = n[k]
			}
			if num(n[k]) > num(hi) {
				hi = n[k]
			}
		}
		out[k] = lo
		if num(lo) != num(hi) {
			out[k] = lo + "-" + hi
		}
	}
	return out
}

func num(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}
