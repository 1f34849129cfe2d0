package cli

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/server"
)

// update rewrites the generated documents (docs/flags.md) instead of
// comparing them.
var update = flag.Bool("update", false, "rewrite docs/flags.md from the settings table")

const flagsDocPath = "../../docs/flags.md"

// docs/flags.md is the help of run and serve as markdown, made from the
// same settings table and group texts as `tlsbench help run`: a setting
// added, renamed or re-explained there shows here, or this test fails.
func TestFlagsDocIsCurrent(t *testing.T) {
	t.Parallel()
	got := flagsDoc(t)
	if *update {
		if err := os.WriteFile(flagsDocPath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(flagsDocPath)
	if err != nil {
		t.Fatalf("%v (go test ./internal/cli -run TestFlagsDocIsCurrent -update writes it)", err)
	}
	if string(want) != got {
		t.Errorf("docs/flags.md is not what the settings table says (go test ./internal/cli -run TestFlagsDocIsCurrent -update rewrites it); first difference:\n%s",
			firstDifference(string(want), got))
	}
}

// The generated document holds every flag of run and serve, and nothing
// of this machine (a default computed from its descriptor limit).
func TestFlagsDocCoversTheTable(t *testing.T) {
	t.Parallel()
	doc := flagsDoc(t)
	for cmd, fs := range definedFlags(t) {
		if cmd == plan.Compare {
			continue
		}
		for _, s := range plan.For(cmd) {
			if !s.Hidden && !strings.Contains(doc, "`--"+s.Name) {
				t.Errorf("docs/flags.md lacks %s --%s", fs.Cmd, s.Name)
			}
		}
	}
	if n := strconv.Itoa(server.DefaultMaxConns()); strings.Contains(doc, "here "+n) {
		t.Errorf("docs/flags.md names this machine's default connection cap %s", n)
	}
}

// flagsDoc renders the document: run's groups as its help orders them,
// then serve's flags.
func flagsDoc(t *testing.T) string {
	t.Helper()
	fss := definedFlags(t)
	var b strings.Builder
	b.WriteString("<!-- Generated from the settings table; go test ./internal/cli -run TestFlagsDocIsCurrent -update rewrites it. -->\n")
	b.WriteString("# Flags of tlsbench run and tlsbench serve\n\n")
	b.WriteString("Every setting of `tlsbench run`, by topic, as `tlsbench help run` prints them\n")
	b.WriteString("(`tlsbench help run GROUP` prints one group), then those of `tlsbench serve`.\n")
	b.WriteString("A plan file (`--config`) takes the same names as keys.\n\n")
	fmt.Fprintf(&b, "Given twice, a flag's last value counts and a list replaces the list given\nbefore; %s add a value each time they are given.\n\n", accumulating())
	b.WriteString("Groups of `tlsbench run`:")
	for i, g := range plan.Groups {
		sep := ","
		if i == len(plan.Groups)-1 {
			sep = "."
		}
		fmt.Fprintf(&b, " [%s](#%s)%s", g.Name, anchor(g), sep)
	}
	b.WriteString(" Then [tlsbench serve](#tlsbench-serve).\n")
	for _, g := range plan.Groups {
		fmt.Fprintf(&b, "\n## %s\n\n", heading(g))
		fmt.Fprintf(&b, "`tlsbench help run %s`\n\n", g.Name)
		if text := strings.TrimSpace(g.Text()); text != "" {
			b.WriteString(markdownText(paragraphs(text)))
			b.WriteString("\n\n")
		}
		for _, s := range plan.InGroup(plan.Run, g.Name) {
			writeFlag(&b, fss[plan.Run], s)
		}
	}
	b.WriteString("\n## tlsbench serve\n\n")
	b.WriteString("`tlsbench serve --help`: the built-in server alone. The flags it shares with\n`tlsbench run` set the server that `run` starts.\n\n")
	for _, s := range plan.For(plan.Serve) {
		if !s.Hidden {
			writeFlag(&b, fss[plan.Serve], s)
		}
	}
	return b.String()
}

// heading is a group's title with its name, as the help's "[name] title".
func heading(g plan.GroupInfo) string { return g.Title + " (" + string(g.Name) + ")" }

// anchor is the link target markdown renderers make of a group's heading.
func anchor(g plan.GroupInfo) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading(g)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

// writeFlag writes one flag as a list item: what the help prints for it.
func writeFlag(b *strings.Builder, fs *command.FlagSet, s *plan.Setting) {
	fl := fs.Lookup(s.Name)
	name := "--" + s.Name
	if s.Placeholder != "" {
		name += " " + s.Placeholder
	}
	usage := machineFree(fl.Usage)
	if def := fl.DefValue; def != "" && def != "false" && def != "0" && def != "0s" {
		usage += " (default `" + def + "`)"
	}
	fmt.Fprintf(b, "- `%s`: %s\n", name, markdownText(usage))
}

// machineFree leaves out of a help text the figures of this machine.
func machineFree(s string) string {
	return strings.ReplaceAll(s, ": here "+strconv.Itoa(server.DefaultMaxConns()), "")
}

// paragraphs separates the paragraphs of a group's text, which the help
// starts on a new line each: a sentence's end followed by a flag.
func paragraphs(text string) string {
	lines := strings.Split(text, "\n")
	for i := 1; i < len(lines); i++ {
		if strings.HasSuffix(lines[i-1], ".") && strings.HasPrefix(lines[i], "--") {
			lines[i] = "\n" + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

// markdownText keeps a help text's characters literal in markdown: its
// asterisks, underscores and angle brackets would be emphasis or HTML.
func markdownText(s string) string {
	return strings.NewReplacer("*", `\*`, "_", `\_`, "<", `\<`, ">", `\>`).Replace(s)
}

// firstDifference shows the first line on which two texts differ.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			return fmt.Sprintf("line %d:\n  file:  %q\n  table: %q", i+1, a, c)
		}
	}
	return "(none)"
}
