package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/plan"
)

const completionUsage = `Usage: tlsbench completion bash|zsh|fish

Prints a shell completion script: the commands, the flags of run and
serve, and the values of the flags that take a fixed set (--tls 1.2,1.3,
--transport, --format ...), after a comma too. Load it with
  source <(tlsbench completion bash)       # bash, e.g. in ~/.bashrc
  source <(tlsbench completion zsh)        # zsh, after compinit
  tlsbench completion fish | source        # fish
`

func completionCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := command.NewFlagSet("completion", stdout, func(w io.Writer) { io.WriteString(w, completionUsage) })
	shells, err := fs.ParseWithArgs(args)
	if err != nil {
		return err
	}
	if len(shells) != 1 {
		return command.Usagef("completion: name one shell: bash, zsh or fish")
	}
	write, ok := map[string]func(io.Writer){"bash": writeBash, "zsh": writeZsh, "fish": writeFish}[shells[0]]
	if !ok {
		return command.Usagef("completion %s: want bash, zsh or fish", command.ShownValue(shells[0]))
	}
	write(stdout)
	return nil
}

// completed are the commands whose flags are completed, from the table.
var completed = []struct {
	name string
	cmd  plan.Command
}{{"run", plan.Run}, {"serve", plan.Serve}}

// shellWords quotes words for a shell's single-quoted string.
func shellWords(words []string) string {
	return strings.ReplaceAll(strings.Join(words, " "), "'", "")
}

// takesFile reports whether a setting's value is a path.
func takesFile(s *plan.Setting) bool {
	return s.Placeholder == "FILE" || s.Placeholder == "DIR" || s.Placeholder == "PROGRAM"
}

func writeBash(w io.Writer) {
	fmt.Fprintf(w, "# bash completion for tlsbench\n_tlsbench() {\n")
	fmt.Fprintf(w, "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n")
	fmt.Fprintf(w, "  if [[ $COMP_CWORD -eq 1 ]]; then COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return; fi\n", shellWords(commandList()))
	fmt.Fprintf(w, "  case \"${COMP_WORDS[1]}\" in\n")
	for _, c := range completed {
		fmt.Fprintf(w, "  %s)\n    case \"$prev\" in\n", c.name)
		for _, s := range plan.For(c.cmd) {
			if v := command.ValuesOf(s); v != nil && !s.Hidden {
				fmt.Fprintf(w, "      --%s) _tlsbench_values '%s'; return;;\n", s.Name, shellWords(v))
			} else if takesFile(s) {
				fmt.Fprintf(w, "      --%s) COMPREPLY=($(compgen -f -- \"$cur\")); return;;\n", s.Name)
			}
		}
		fmt.Fprintf(w, "    esac\n    COMPREPLY=($(compgen -W '%s' -- \"$cur\"));;\n", shellWords(flagList(c.cmd)))
	}
	fmt.Fprintf(w, "  help) COMPREPLY=($(compgen -W '%s' -- \"$cur\"));;\n", shellWords(commandList()))
	fmt.Fprintf(w, "  esac\n}\n")
	// A list's values complete after its last comma too.
	fmt.Fprintf(w, "_tlsbench_values() {\n  local cur=\"${COMP_WORDS[COMP_CWORD]}\"\n")
	fmt.Fprintf(w, "  if [[ $cur == *,* ]]; then COMPREPLY=($(compgen -P \"${cur%%,*},\" -W \"$1\" -- \"${cur##*,}\"))\n")
	fmt.Fprintf(w, "  else COMPREPLY=($(compgen -W \"$1\" -- \"$cur\")); fi\n}\n")
	fmt.Fprintf(w, "complete -F _tlsbench tlsbench\n")
}

func writeZsh(w io.Writer) {
	fmt.Fprintf(w, "#compdef tlsbench\n# zsh completion for tlsbench\n_tlsbench() {\n")
	fmt.Fprintf(w, "  if (( CURRENT == 2 )); then compadd -- %s; return; fi\n", shellWords(commandList()))
	fmt.Fprintf(w, "  case $words[2] in\n")
	for _, c := range completed {
		fmt.Fprintf(w, "  %s)\n    case $words[CURRENT-1] in\n", c.name)
		for _, s := range plan.For(c.cmd) {
			if v := command.ValuesOf(s); v != nil && !s.Hidden {
				fmt.Fprintf(w, "      --%s) compset -P '*,'; compadd -- %s; return;;\n", s.Name, shellWords(v))
			} else if takesFile(s) {
				fmt.Fprintf(w, "      --%s) _files; return;;\n", s.Name)
			}
		}
		fmt.Fprintf(w, "    esac\n    compadd -- %s;;\n", shellWords(flagList(c.cmd)))
	}
	fmt.Fprintf(w, "  help) compadd -- %s;;\n  esac\n}\n", shellWords(commandList()))
	fmt.Fprintf(w, "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _tlsbench \"$@\"; else compdef _tlsbench tlsbench; fi\n")
}

func writeFish(w io.Writer) {
	fmt.Fprintf(w, "# fish completion for tlsbench\ncomplete -c tlsbench -f\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "complete -c tlsbench -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.summary))
	}
	for _, c := range completed {
		for _, s := range plan.For(c.cmd) {
			if s.Hidden {
				continue
			}
			line := fmt.Sprintf("complete -c tlsbench -n '__fish_seen_subcommand_from %s' -l %s", c.name, s.Name)
			switch v := command.ValuesOf(s); {
			case v != nil:
				line += " -x -a " + fishQuote(strings.Join(v, " "))
			case takesFile(s):
				line += " -r -F"
			case s.Kind != plan.Bool:
				line += " -x"
			}
			fmt.Fprintln(w, line+" -d "+fishQuote(firstClause(command.HelpText(s))))
		}
	}
}

// fishQuote single-quotes s for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// firstClause is the start of a help text, short enough for a menu.
func firstClause(s string) string {
	if i := strings.IndexAny(s, ";("); i > 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > 60 {
		s = string(r[:57]) + "..."
	}
	return strings.TrimSpace(s)
}

func commandList() []string {
	var out []string
	for _, c := range commands() {
		out = append(out, c.name)
	}
	return append(out, "help")
}

func flagList(c plan.Command) []string {
	var out []string
	for _, name := range plan.Names(c) {
		out = append(out, "--"+name)
	}
	return append(out, "--help")
}
