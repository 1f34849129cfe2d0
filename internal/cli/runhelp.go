package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/plan"
)

// run's help: the intro and examples, then the settings group by group,
// each with its title, what it explains and its flags, in the settings
// table's groups and order.

// printRunHelp writes run's whole help.
func printRunHelp(w io.Writer, fs *command.FlagSet) {
	io.WriteString(w, runUsage)
	fmt.Fprintf(w, "\nSettings, by topic (tlsbench help run GROUP shows one: %s).\n", groupNames())
	fmt.Fprintf(w, "Given twice, a flag's last value counts and a list replaces the list given\nbefore; %s add a value each time they are given.\n", accumulating())
	for _, g := range plan.Groups {
		printGroup(w, fs, g)
	}
}

// printGroup writes one group's help.
func printGroup(w io.Writer, fs *command.FlagSet, g plan.GroupInfo) {
	fmt.Fprintf(w, "\n[%s] %s\n", g.Name, g.Title)
	if text := g.Text(); text != "" {
		io.WriteString(w, strings.TrimPrefix(text, "\n"))
		fmt.Fprintln(w)
	}
	for _, s := range plan.InGroup(plan.Run, g.Name) {
		fs.PrintFlag(w, fs.Lookup(s.Name))
	}
}

// runHelpGroup writes the help of the group a word names.
func runHelpGroup(w io.Writer, fs *command.FlagSet, word string) error {
	name, ok := plan.GroupNamed(word)
	if !ok {
		return command.Usagef("help run %s: no such group; the groups are %s", command.ShownValue(word), groupNames())
	}
	for _, g := range plan.Groups {
		if g.Name == name {
			printGroup(w, fs, g)
		}
	}
	return command.ErrHelp
}

// helpGroupArg finds "--help GROUP" in run's arguments: the group's word,
// "" when none is asked for.
func helpGroupArg(args []string) (string, bool) {
	for i, a := range args {
		if a == "--" {
			break
		}
		if isHelpFlag(a) && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			return args[i+1], true
		}
	}
	return "", false
}

func groupNames() string {
	var names []string
	for _, g := range plan.Groups {
		names = append(names, string(g.Name))
	}
	return strings.Join(names, ", ")
}

// accumulating names the flags whose values add up, from the table.
func accumulating() string {
	var names []string
	for _, s := range plan.For(plan.Run) {
		if s.Accumulates() {
			names = append(names, "--"+s.Name)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
