package plan

// Group is a topic of the help: its name is what `tlsbench help run
// GROUP` takes.
type Group string

// The help groups of tlsbench run, in the order the help shows them.
const (
	GroupMatrix      Group = "matrix"
	GroupCase        Group = "case"
	GroupServer      Group = "server"
	GroupTarget      Group = "target"
	GroupThroughput  Group = "throughput"
	GroupProxy       Group = "proxy"
	GroupOpenLoop    Group = "open-loop"
	GroupInterleaved Group = "interleaved"
	GroupSharding    Group = "sharding"
	GroupOutput      Group = "output"
)

// GroupInfo is a group with its title.
type GroupInfo struct {
	Name  Group
	Title string
}

// Text explains the group's settings together (the help prints it
// before the group's flags); "" for a group that needs no more than its
// flags' help.
func (g GroupInfo) Text() string { return groupTexts[g.Name] }

// Groups are the help groups in order.
var Groups = []GroupInfo{
	{GroupMatrix, "The matrix: each value of these is a case of its own"},
	{GroupCase, "Per case: how each case is measured"},
	{GroupServer, "The built-in server"},
	{GroupTarget, "An external server (--target)"},
	{GroupThroughput, "Throughput (--mode throughput)"},
	{GroupProxy, "Through a proxy (--proxy)"},
	{GroupOpenLoop, "Open loop (--rate, --find-rate)"},
	{GroupInterleaved, "Comparing: interleaved runs and baselines"},
	{GroupSharding, "Sharded runs (--shard, --shards)"},
	{GroupOutput, "Output, profiles and plan files"},
}

// GroupNamed is the group a word names: its name, or the start of only
// one name ("open" for open-loop). ok is false for none.
func GroupNamed(word string) (Group, bool) {
	var found []Group
	for _, g := range Groups {
		if string(g.Name) == word {
			return g.Name, true
		}
		if len(word) > 0 && len(word) <= len(g.Name) && string(g.Name[:len(word)]) == word {
			found = append(found, g.Name)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return "", false
}
