package merge

import (
	"fmt"
	"strings"
)

// Pos is where a record was read: Source names the input (a file name,
// or "standard input"), Line its line (from 1; 0 when not known, and
// then Record is its place among the source's records).
type Pos struct {
	Source string
	Line   int
	Record int
}

func (p Pos) String() string {
	switch {
	case p.Line > 0:
		return fmt.Sprintf("%s: line %d", p.Source, p.Line)
	case p.Record > 0:
		return fmt.Sprintf("%s: record %d", p.Source, p.Record)
	}
	return p.Source
}

// Error is a record the merge refuses: where it was read, its case, the
// field at fault (named as in the results file: run_plan,
// env.tlsbench_version, phases.connect.histogram) and why. A caller
// reports it as bad input.
type Error struct {
	Pos    Pos
	Case   string
	Field  string
	Reason string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Pos.String())
	if e.Case != "" {
		fmt.Fprintf(&b, " (%s)", e.Case)
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	b.WriteString(": " + e.Reason)
	return b.String()
}

// MissingError is a merge without every shard's record of a case (and
// Options.AllowMissing not given): the figures would lack those shards'
// load without saying so.
type MissingError struct {
	Case    string // the first case in the input's order that lacks a shard
	Missing []int  // the shards it lacks
	Shards  int    // how many shards the run had
	// Everywhere is true when no case has a record of those shards:
	// whole shards are missing, not some of their cases.
	Everywhere bool
}

func (e *MissingError) Error() string {
	which := "shard " + intList(e.Missing)
	if len(e.Missing) > 1 {
		which = "shards " + intList(e.Missing)
	}
	if e.Everywhere {
		return fmt.Sprintf("%s of %d: no records; give the results of every shard of the run, or allow missing shards (the merged records then list them)", which, e.Shards)
	}
	return fmt.Sprintf("%s of %d: no record of case %s; give the results of every shard of the run, or allow missing shards (the merged records then list them)", which, e.Shards, e.Case)
}

// intList writes ascending integers compactly: "0-3, 7, 9-10".
func intList(xs []int) string {
	var parts []string
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, fmt.Sprint(xs[i]))
		case j == i+1:
			parts = append(parts, fmt.Sprint(xs[i]), fmt.Sprint(xs[j]))
		default:
			parts = append(parts, fmt.Sprintf("%d-%d", xs[i], xs[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
