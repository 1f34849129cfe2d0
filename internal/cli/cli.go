package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/tlsbench/tlsbench/internal/callgrind"
	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/internal/cli/proxycmd"
	"github.com/tlsbench/tlsbench/internal/cli/reportcmd"
	"github.com/tlsbench/tlsbench/internal/cli/servecmd"
	"github.com/tlsbench/tlsbench/results"
)

// Exit statuses.
const (
	ExitOK          = command.ExitOK
	ExitFailure     = command.ExitFailure
	ExitUsage       = command.ExitUsage
	ExitInterrupted = command.ExitInterrupted
)

// ExitCode maps a command's error to the process exit status.
func ExitCode(err error) int { return command.ExitCode(err) }

// Message is the one line main prints for err ("" for none).
func Message(err error) string { return command.Message(err) }

type subcommand struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []subcommand {
	return []subcommand{
		{"run", "run a handshake benchmark matrix (against the built-in server by default)", runCmd},
		{"serve", "run the built-in TLS server alone, for external clients", servecmd.Serve},
		{"proxy", "run the built-in TLS-intercepting proxy (HTTP CONNECT, certificates issued per host)", proxycmd.Proxy},
		{"probe", "find out what a TLS server supports: versions, tickets, resumption", probeCmd},
		{"pki", "write a test PKI: CA, server and client identities as PEM and PKCS#12", servecmd.PKI},
		{"report", "render results files as table, markdown, csv, json, benchfmt or html", reportcmd.Report},
		{"compare", "compare a candidate results file with a baseline, case by case", reportcmd.Compare},
		{"merge", "merge the results of a sharded run's shards into the results of the whole run", reportcmd.Merge},
		{"kubernetes", "print a Kubernetes Job that runs a benchmark as shards on many nodes", kubernetesCmd},
		{"completion", "print a shell completion script (bash, zsh or fish)", completionCmd},
		{"version", "print the version", versionCmd},
	}
}

// Run dispatches args (without the program name) to a subcommand.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		printTopUsage(stderr)
		return command.Usagef("no command given; try 'tlsbench run'")
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && !isHelpFlag(args[1]) {
			// "tlsbench help run" is "tlsbench run --help".
			for _, c := range commands() {
				if c.name == args[1] {
					return Run(ctx, append([]string{args[1], "--help"}, args[2:]...), stdout, stderr)
				}
			}
			return command.Usagef("help: unknown command %q; commands: %s", args[1], commandNames())
		}
		printTopUsage(stdout)
		return command.ErrHelp
	case "-v", "-version", "--version":
		name = "version"
		args = []string{"version"}
	}
	for _, c := range commands() {
		if c.name == name {
			err := c.run(ctx, args[1:], stdout, stderr)
			if errors.Is(err, command.ErrHelp) {
				return nil
			}
			return err
		}
	}
	return command.Usagef("unknown command %q; commands: %s (see 'tlsbench help')", name, commandNames())
}

func isHelpFlag(s string) bool {
	return s == "-h" || s == "-help" || s == "--help"
}

func commandNames() string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

func printTopUsage(w io.Writer) {
	fmt.Fprintln(w, "tlsbench: a TLS handshake and throughput lab")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: tlsbench <command> [flags]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'tlsbench <command> --help' for a command's flags and examples.")
}

func versionCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := command.NewFlagSet("version", stdout, func(w io.Writer) {
		fmt.Fprintln(w, "Usage: tlsbench version")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Prints the tlsbench version, the Go version it was built with, and the OS and architecture;")
		fmt.Fprintln(w, "then, when it was built from a git checkout, the revision, its commit time and whether")
		fmt.Fprintln(w, "the checkout had uncommitted changes. Results record the same version (env.tlsbench_version).")
	})
	if err := fs.Parse(args); err != nil {
		return err
	}
	env, build := results.CurrentEnv(), results.CurrentBuild()
	fmt.Fprintf(stdout, "tlsbench %s (%s %s/%s)\n", env.TLSBenchVersion, env.GoVersion, env.GOOS, env.GOARCH)
	if src := build.Source(); src != "" {
		fmt.Fprintln(stdout, src)
	}
	return nil
}

// Main is the whole program for a process: it runs args (without the
// program name) until done or interrupted (SIGINT, SIGTERM), prints the
// error's one line on stderr and returns the exit status. The tlsbench
// binary and test binaries standing in for it share it.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if callgrind.InCountedRun() {
		// Under callgrind, the run it was started by stands between
		// it and the signals (see callgrind.RunCounted).
		var cancel context.CancelFunc
		ctx, cancel = callgrind.StopContext(ctx)
		defer cancel()
	}
	err := Run(ctx, args, os.Stdout, os.Stderr)
	stop()
	if msg := Message(err); msg != "" {
		fmt.Fprintln(os.Stderr, "tlsbench: "+msg)
	}
	return ExitCode(err)
}
