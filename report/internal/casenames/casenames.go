package casenames

import (
	"fmt"
	"slices"
	"strings"
)

// Text names some of the cases all: one by its name, every case as
// "all 16 cases", others as "3 cases (handshake/tls1.3/*,
// handshake/tls1.2/{c1,c8})": the names' common paths, with * for every
// case under one.
func Text(all, some []string) string {
	set := map[string]bool{}
	for _, s := range some {
		set[s] = true
	}
	switch {
	case len(set) == 1:
		return some[0]
	case len(set) == len(slices.Compact(slices.Sorted(slices.Values(all)))):
		return fmt.Sprintf("all %d cases", len(set))
	}
	root := &caseNode{}
	for _, l := range all {
		root.add(strings.Split(l, "/"), l)
	}
	return fmt.Sprintf("%d cases (%s)", len(set), strings.Join(root.describe("", set), ", "))
}

// caseNode is a segment of case names: the cases under it.
type caseNode struct {
	name     string
	label    string // the case it ends, if any
	children []*caseNode
}

func (n *caseNode) add(segs []string, label string) {
	if len(segs) == 0 {
		n.label = label
		return
	}
	for _, c := range n.children {
		if c.name == segs[0] {
			c.add(segs[1:], label)
			return
		}
	}
	c := &caseNode{name: segs[0]}
	n.children = append(n.children, c)
	c.add(segs[1:], label)
}

// covered reports whether every case under n is in set; some whether
// one is.
func (n *caseNode) covered(set map[string]bool) bool {
	if n.label != "" && !set[n.label] {
		return false
	}
	for _, c := range n.children {
		if !c.covered(set) {
			return false
		}
	}
	return true
}

// cases are the labels of the cases under n.
func (n *caseNode) cases() []string {
	var out []string
	if n.label != "" {
		out = append(out, n.label)
	}
	for _, c := range n.children {
		out = append(out, c.cases()...)
	}
	return out
}

func (n *caseNode) some(set map[string]bool) bool {
	return set[n.label] || slices.ContainsFunc(n.children, func(c *caseNode) bool { return c.some(set) })
}

// describe names the cases of set under n, whose path is path.
func (n *caseNode) describe(path string, set map[string]bool) []string {
	join := func(name string) string {
		if path == "" {
			return name
		}
		return path + "/" + name
	}
	if len(n.children) > 0 && n.label == "" && path != "" && n.covered(set) {
		if only := n.cases(); len(only) == 1 {
			return only // one case is named, not matched
		}
		return []string{path + "/*"}
	}
	var out []string
	if set[n.label] {
		out = append(out, n.label)
	}
	var leaves []string
	leavesAt := -1
	for _, c := range n.children {
		switch {
		case !c.some(set):
		case len(c.children) == 0:
			if leavesAt < 0 {
				leavesAt = len(out)
			}
			leaves = append(leaves, c.name)
		default:
			out = append(out, c.describe(join(c.name), set)...)
		}
	}
	switch {
	case len(leaves) == 1:
		out = slices.Insert(out, leavesAt, join(leaves[0]))
	case len(leaves) > 1:
		out = slices.Insert(out, leavesAt, join("{"+strings.Join(leaves, ",")+"}"))
	}
	return out
}
