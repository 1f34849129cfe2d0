//go:build linux

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// config is what every attack needs of the command line and of the
// tlsbench binary.
type config struct {
	bin        string
	tmp        string
	serveFlags []string
	proxyFlags []string
	serveHelp  string
	proxyHelp  string
	// netns is set in the harness started inside a network namespace;
	// noNetns when none could be made and the row must say so.
	netns, noNetns bool
}

func main() {
	os.Exit(run())
}

func run() int {
	only := flag.String("only", "", "run only the attacks whose name is or starts with `NAME` (e.g. serve-idle, proxy)")
	bin := flag.String("bin", "", "tlsbench binary to attack (default: built from ./cmd/tlsbench)")
	serveFlags := flag.String("serve-flags", "", "extra `FLAGS` for every tlsbench serve started (space-separated)")
	proxyFlags := flag.String("proxy-flags", "", "extra `FLAGS` for every tlsbench proxy started (space-separated)")
	inner := flag.Bool("netns-inner", false, "internal: run inside the network namespace and print the rows as JSON")
	flag.Parse()
	raiseFileLimit()
	cfg, cleanup, err := setup(*bin, *serveFlags, *proxyFlags)
	if err != nil {
		fmt.Fprintln(os.Stderr, "attack:", err)
		return 2
	}
	defer cleanup()
	cfg.netns = *inner
	list := selectAttacks(*only)
	if len(list) == 0 {
		fmt.Fprintf(os.Stderr, "attack: -only %q matches no attack; names: %s\n", *only, strings.Join(attackNames(), ", "))
		return 2
	}
	if *inner {
		return runInner(cfg, list)
	}
	rows := runAll(cfg, list)
	printTable(os.Stdout, rows)
	return 0
}

// setup builds the binary when none is given and reads the commands'
// help, so that flags are passed only where they exist.
func setup(bin, serveFlags, proxyFlags string) (*config, func(), error) {
	tmp, err := os.MkdirTemp("", "tlsbench-attack-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	cfg := &config{bin: bin, tmp: tmp, serveFlags: strings.Fields(serveFlags), proxyFlags: strings.Fields(proxyFlags)}
	if cfg.bin == "" {
		cfg.bin = filepath.Join(tmp, "tlsbench")
		fmt.Fprintln(os.Stderr, "building ./cmd/tlsbench ...")
		build := exec.Command("go", "build", "-o", cfg.bin, "./cmd/tlsbench")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("building ./cmd/tlsbench (run from the module's root, or give -bin): %v", err)
		}
	}
	cfg.serveHelp = helpText(cfg.bin, "serve")
	cfg.proxyHelp = helpText(cfg.bin, "proxy")
	if cfg.serveHelp == "" || cfg.proxyHelp == "" {
		cleanup()
		return nil, nil, fmt.Errorf("-bin %s: not a tlsbench binary with serve and proxy commands", cfg.bin)
	}
	cfg.serveFlags = knownFlags("serve", cfg.serveHelp, cfg.serveFlags)
	cfg.proxyFlags = knownFlags("proxy", cfg.proxyHelp, cfg.proxyFlags)
	return cfg, cleanup, nil
}

// knownFlags drops the flags (with their values) that the command's help
// does not list, saying so: the same command line then measures a binary
// from before a flag existed (with its defaults) and one from after.
func knownFlags(command, help string, flags []string) []string {
	var kept []string
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(f, "-"), "=")
		takesNext := !hasValue && i+1 < len(flags) && !strings.HasPrefix(flags[i+1], "-")
		if strings.HasPrefix(f, "-") && !hasFlag(help, name) {
			fmt.Fprintf(os.Stderr, "%s has no --%s: left out, its default stands\n", command, name)
			if takesNext {
				i++
			}
			continue
		}
		kept = append(kept, f)
		if takesNext {
			kept = append(kept, flags[i+1])
			i++
		}
	}
	return kept
}

// helpText is a command's --help; help goes to stdout or stderr and may
// exit non-zero, so both are taken and the exit status ignored.
func helpText(bin, command string) string {
	out, _ := exec.Command(bin, command, "--help").CombinedOutput()
	if !strings.Contains(string(out), "Usage:") {
		return ""
	}
	return string(out)
}

// hasFlag reports whether a command's help lists --name.
func hasFlag(help, name string) bool {
	return strings.Contains(help, "  --"+name+" ") || strings.Contains(help, "  --"+name+"\n")
}

// raiseFileLimit lifts the soft limit on open files to the hard one:
// the harness holds 2,000 sockets at once, and the flood opens and
// closes 20,000. The Go runtime does this on its own since 1.19, so
// this only makes it explicit (and the children get the same limit).
func raiseFileLimit() {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil && l.Cur < l.Max {
		l.Cur = l.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
}

// fileLimit is the soft limit on open files, for bounding concurrency.
func fileLimit() int {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) != nil {
		return 1024
	}
	return int(l.Cur)
}

// runAll runs the attacks one after the other; those that need the
// network namespace go to a harness started inside one.
func runAll(cfg *config, list []attack) []row {
	fmt.Fprintf(os.Stderr, "%s, %d CPUs, open files %d\n", runtime.Version(), runtime.NumCPU(), fileLimit())
	var rows []row
	for _, a := range list {
		fmt.Fprintf(os.Stderr, "== %s (%s)\n", a.name, a.target)
		start := time.Now()
		var r row
		if a.netns {
			r = runInNetns(cfg, a)
		} else {
			r = measure(cfg, a)
		}
		fmt.Fprintf(os.Stderr, "   %s in %.1f s\n", r.Outcome, time.Since(start).Seconds())
		rows = append(rows, r)
	}
	return rows
}

// runInner is the harness inside the namespace: it prints its rows as
// JSON lines for the harness outside.
func runInner(cfg *config, list []attack) int {
	if err := netnsUp(); err != nil {
		fmt.Fprintln(os.Stderr, "attack: in the network namespace:", err)
		return 1
	}
	enc := json.NewEncoder(os.Stdout)
	for _, a := range list {
		enc.Encode(measure(cfg, a))
	}
	return 0
}

// background is the context of one attack: the attack's own bounds come
// first, this one only stops a harness that went wrong.
func background() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 45*time.Second)
}
