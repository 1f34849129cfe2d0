package cli_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/internal/testchild"
)

// The documents whose sh blocks TestDocCommands runs, from this package.
var docFiles = []string{"../../README.md", "../../docs/*.md"}

// How the documents' commands are run, in the sandbox of their document:
//
//   - tlsbench run with --out FILE (a file the next commands read) is
//     measured, with the documented last-value-counts rule cutting each
//     case short: runShort is appended (and --duration, --bytes shrunk);
//   - tlsbench run without --out is planned without measuring (every
//     flag parsed and validated, every case planned, identities loaded);
//   - tlsbench serve and tlsbench proxy start in the background, are
//     waited for until they listen, and are stopped with an interrupt
//     (exit 0) when the document's commands are done;
//   - every other tlsbench command runs as it is written.
//
// A document's commands run one after the other in one directory, so a
// file one of them writes is there for the next; only consecutive
// shards of one sharded run (the same --start-at) run at once, as on the
// machines they are written for.
var runShort = []string{"--warmup", "0", "--iterations", "2", "--case-time", "1s"}

// standInHosts are the servers the documents name that the reader has:
// each is a tlsbench serve on loopback, whose CA is ca.pem in the
// sandbox. Loopback ports the documents name get a free port each, and a
// stand-in too unless a command of the document listens there.
var (
	standInHosts  = []string{"host:443", "nginx.example:443", "10.0.0.5:443", "server.example.com:443"}
	loopbackPorts = []string{"8443", "8444", "4433", "3129"}
	// sizes shrinks what a test cannot afford (a 1 GiB payload).
	sizes = strings.NewReplacer("head -c 1G ", "head -c 1M ", "/tmp/payload", "payload")
	// startAt is a sharded run's start: it becomes a moment ahead of now.
	startAt = regexp.MustCompile(`\b20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ\b`)
)

// otherCommands are the programs other than tlsbench the documents run:
// run says whether the test runs the line with sh, why says why not. A
// peer runs where it is installed (not under -short); where it is not,
// the line is logged as not run, and under CI it fails, as the tests of
// real peers do.
var otherCommands = map[string]struct {
	run, peer bool
	why       string
}{
	"openssl rand": {run: true},
	"head":         {run: true},
	"curl":         {run: true, peer: true},
	"gtlsclient":   {run: true, peer: true},
	"openssl":      {why: "an interactive client (s_client)"},
	"sudo":         {why: "needs root and a kernel module"},
	"kubectl":      {why: "needs a Kubernetes cluster"},
	"go":           {why: "a development command (tests, the attack harness, pprof)"},
}

// docCommand is one command line of an sh block.
type docCommand struct {
	file  string
	line  int
	text  string // as written, comments and continuations removed
	words []string
	bg    bool   // ends with &
	out   string // > FILE
}

// TestDocCommands runs every command of the sh blocks of README.md and
// docs/*.md, document by document, against the stand-ins they need.
func TestDocCommands(t *testing.T) {
	t.Parallel()
	docs := docCommands(t)
	bin := "" // this test binary, as tlsbench
	if raceDetector {
		bin = scriptProgram(t)
	}
	for _, file := range slices.Sorted(maps.Keys(docs)) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			d := newDocRun(t, bin, docs[file])
			d.run()
		})
	}
}

// The extraction finds what it must: the README's own commands, a
// continued line, a comment, a background server.
func TestDocCommandsExtracted(t *testing.T) {
	t.Parallel()
	docs := docCommands(t)
	var readme []string
	for _, c := range docs["../../README.md"] {
		readme = append(readme, c.text)
	}
	for _, want := range []string{"go run ./cmd/tlsbench run", "tlsbench run --target host:443 --ca ca.pem"} {
		if !slices.Contains(readme, want) {
			t.Errorf("README's commands %q lack %q", readme, want)
		}
	}
	cmds, err := parseBlock("x.md", 1, "tlsbench serve \\\n  --quic &   # a server\ntlsbench run --out r.jsonl\n")
	if err != nil || len(cmds) != 2 || !cmds[0].bg || strings.Join(cmds[0].words, " ") != "tlsbench serve --quic" || cmds[1].line != 3 {
		t.Errorf("parseBlock: %+v, %v", cmds, err)
	}
	if _, err := shCommands("x.md", "```\ntlsbench run\n```\n"); err == nil {
		t.Error("a code block without a language is not refused")
	}
	if _, err := parseBlock("x.md", 1, "tlsbench report r.jsonl | less\n"); err == nil {
		t.Error("a pipe into another program is not refused")
	}
}

// docCommands reads the sh blocks of every document.
func docCommands(t *testing.T) map[string][]docCommand {
	t.Helper()
	var files []string
	for _, pattern := range docFiles {
		m, err := filepath.Glob(pattern)
		if err != nil || len(m) == 0 {
			t.Fatalf("no document matches %s: %v", pattern, err)
		}
		files = append(files, m...)
	}
	docs := map[string][]docCommand{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		cmds, err := shCommands(file, string(data))
		if err != nil {
			t.Fatal(err)
		}
		docs[file] = cmds
	}
	return docs
}

// shCommands are the commands of a markdown text's ```sh blocks. Blocks
// of other languages (text: output) are left alone; a block must say
// which it is, so that no command goes unrun for want of a label.
func shCommands(file, text string) ([]docCommand, error) {
	var out []docCommand
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		fence := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(fence, "```") {
			continue
		}
		lang := strings.Fields(strings.TrimPrefix(fence, "```") + " ")
		end := i + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("%s:%d: a code block that never ends", file, i+1)
		}
		if len(lang) == 0 {
			return nil, fmt.Errorf("%s:%d: a code block without a language: sh for commands (this test runs them), text for output", file, i+1)
		}
		if lang[0] == "sh" {
			cmds, err := parseBlock(file, i+2, strings.Join(lines[i+1:end], "\n"))
			if err != nil {
				return nil, err
			}
			out = append(out, cmds...)
		}
		i = end
	}
	return out, nil
}

// parseBlock splits a block into commands: continued lines joined,
// comments removed, a final & or > FILE noted.
func parseBlock(file string, first int, block string) ([]docCommand, error) {
	var out []docCommand
	lines := strings.Split(block, "\n")
	for i := 0; i < len(lines); i++ {
		start, text := i, strings.TrimSpace(lines[i])
		for strings.HasSuffix(text, "\\") && i+1 < len(lines) {
			i++
			text = strings.TrimSuffix(text, "\\") + " " + strings.TrimSpace(lines[i])
		}
		if c := strings.Index(text, " #"); c >= 0 {
			text = strings.TrimSpace(text[:c])
		}
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		c := docCommand{file: file, line: first + start, text: text}
		words := strings.Fields(text)
		if words[len(words)-1] == "&" {
			c.bg, words = true, words[:len(words)-1]
		}
		if n := len(words); n >= 3 && words[n-2] == ">" {
			c.out, words = words[n-1], words[:n-2]
		}
		if slices.Contains(words, "|") && isTlsbench(words) {
			return nil, fmt.Errorf("%s:%d: %q: a pipe; write the output to a file for the next command", file, c.line, text)
		}
		c.words = words
		out = append(out, c)
	}
	return out, nil
}

// isTlsbench says whether the words run tlsbench, as installed or from a
// clone.
func isTlsbench(words []string) bool {
	return words[0] == "tlsbench" || len(words) > 2 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/tlsbench"
}

// tlsbenchArgs are a tlsbench command's arguments.
func tlsbenchArgs(words []string) []string {
	if words[0] == "tlsbench" {
		return words[1:]
	}
	return words[3:]
}

// docRun runs one document's commands in a sandbox of its own.
type docRun struct {
	t        *testing.T
	bin      string // the tlsbench to run; "" for this test binary
	dir      string
	cmds     []docCommand
	ports    map[string]string // a loopback port as documented, the free one used
	hosts    map[string]string // a stand-in host:port, the address used
	services []*service
	env      []string
	// unmade are the files of commands that did not run (kernel TLS
	// on a kernel without it): the commands that read them do not run.
	unmade map[string]string
}

type service struct {
	cmd  *exec.Cmd
	what string
	out  *bytes.Buffer
	done chan error
}

func newDocRun(t *testing.T, bin string, cmds []docCommand) *docRun {
	dir := t.TempDir()
	d := &docRun{t: t, bin: bin, dir: dir, cmds: cmds, ports: map[string]string{}, hosts: map[string]string{}, unmade: map[string]string{}}
	os.Mkdir(filepath.Join(dir, "tmp"), 0o700)
	d.env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, ".config"), "TMPDIR="+filepath.Join(dir, "tmp"),
		testchild.Env())
	t.Cleanup(d.stopServices)
	return d
}

// run runs the document's commands in order.
func (d *docRun) run() {
	d.prepare()
	for i := 0; i < len(d.cmds); i++ {
		c := d.cmds[i]
		if !isTlsbench(c.words) {
			d.other(c)
			continue
		}
		args := d.substitute(tlsbenchArgs(c.words), time.Now())
		if d.cannotRun(c, args) {
			continue
		}
		switch {
		case args[0] == "serve" || args[0] == "proxy":
			d.startService(c, args)
		case args[0] == "run" && shardOf(args) != "":
			group := []docCommand{c}
			for i+1 < len(d.cmds) && isTlsbench(d.cmds[i+1].words) && shardOf(d.cmds[i+1].words) != "" {
				i++
				group = append(group, d.cmds[i])
			}
			d.shards(group)
		case args[0] == "run" && measured(args):
			d.exec(c, d.short(args))
		case args[0] == "run" && !slices.Contains(args, "--print-config"):
			d.plan(c, args)
		default:
			d.exec(c, args)
		}
	}
	d.stopServices()
}

// prepare gives the document the free ports, stand-ins and files it
// needs: ca.pem of the stand-ins, ./tlsbench-main for --versus-server.
func (d *docRun) prepare() {
	served := map[string]bool{}
	named := map[string]bool{}
	hosts := map[string]bool{}
	for _, c := range d.cmds {
		for _, p := range loopbackPorts {
			if regexp.MustCompile(`\b` + p + `\b`).MatchString(c.text) {
				named[p] = true
			}
		}
		for _, h := range standInHosts {
			if strings.Contains(c.text, h) {
				hosts[h] = true
			}
		}
		if isTlsbench(c.words) {
			if a := tlsbenchArgs(c.words); a[0] == "serve" || a[0] == "proxy" {
				_, port, _ := net.SplitHostPort(listenOf(a))
				served[port] = true
				named[port] = true
			}
		}
		if strings.Contains(c.text, "./tlsbench-main") {
			d.linkProgram("tlsbench-main")
		}
	}
	for p := range named {
		d.ports[p] = freePort(d.t)
	}
	var standIns []string
	for p := range named {
		if !served[p] {
			standIns = append(standIns, "127.0.0.1:"+d.ports[p])
		}
	}
	for h := range hosts {
		d.hosts[h] = "127.0.0.1:" + freePort(d.t)
		standIns = append(standIns, d.hosts[h])
	}
	if len(standIns) == 0 {
		return
	}
	pki := filepath.Join(d.dir, ".stand-in")
	d.mustRun("the stand-ins' PKI", []string{"pki", "init", "--dir", pki})
	data, err := os.ReadFile(filepath.Join(pki, "ca.pem"))
	if err != nil {
		d.t.Fatal(err)
	}
	os.WriteFile(filepath.Join(d.dir, "ca.pem"), data, 0o644)
	for _, addr := range standIns {
		d.startService(docCommand{text: "a stand-in at " + addr}, []string{"serve", "--quic", "--listen", addr, "--pki-dir", pki, "--log-level", "error"})
	}
}

// linkProgram puts the tlsbench under test in the sandbox as name.
func (d *docRun) linkProgram(name string) {
	prog := d.bin
	if prog == "" {
		prog, _ = os.Executable()
	}
	if err := os.Symlink(prog, filepath.Join(d.dir, name)); err != nil && !os.IsExist(err) {
		d.t.Fatal(err)
	}
}

// cannotRun says whether a command needs what this machine lacks: a run
// with --ktls on needs a kernel with kernel TLS (without it the run is
// refused, exit 2); a command that reads a file such a run did not
// write cannot run either. Both are logged.
func (d *docRun) cannotRun(c docCommand, args []string) bool {
	d.t.Helper()
	for _, a := range args {
		if why, ok := d.unmade[a]; ok {
			d.t.Logf("%s:%d: not run: it reads %s, which was not made (%s): %s", c.file, c.line, a, why, c.text)
			return true
		}
	}
	i := slices.Index(args, "--ktls")
	if i < 0 || i+1 >= len(args) || !slices.Contains(strings.Split(args[i+1], ","), "on") {
		return false
	}
	err := ktls.Supported()
	if err == nil {
		return false
	}
	why := fmt.Sprintf("--ktls on, and this kernel has no kernel TLS: %v", err)
	if o := slices.Index(args, "--out"); o > 0 && o+1 < len(args) {
		d.unmade[args[o+1]] = why
	}
	d.t.Logf("%s:%d: not run (%s): %s", c.file, c.line, why, c.text)
	return true
}

// substitute writes the documented addresses, ports, sizes and times as
// the sandbox has them.
func (d *docRun) substitute(args []string, now time.Time) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = d.substituteText(a, now)
	}
	return out
}

func (d *docRun) substituteText(a string, now time.Time) string {
	for h, addr := range d.hosts {
		a = strings.ReplaceAll(a, h, addr)
	}
	for p, free := range d.ports {
		a = regexp.MustCompile(`\b`+p+`\b`).ReplaceAllString(a, free)
	}
	a = startAt.ReplaceAllString(a, now.Add(5*time.Second).UTC().Format(time.RFC3339))
	return sizes.Replace(a)
}

// measured says whether a run writes a results file for the next
// commands.
func measured(args []string) bool {
	i := slices.Index(args, "--out")
	return i > 0 && i+1 < len(args) && args[i+1] != "-"
}

// short cuts a measured run's cases short, by flags given again.
func (d *docRun) short(args []string) []string {
	out := append(slices.Clone(args), runShort...)
	if slices.Contains(args, "--duration") || slices.Contains(args, "--find-rate") {
		out = append(out, "--duration", "400ms")
	}
	if slices.Contains(args, "--bytes") {
		out = append(out, "--bytes", "1MiB")
	}
	return out
}

// shardOf is a run's --shard, "" when it is none.
func shardOf(words []string) string {
	if i := slices.Index(words, "--shard"); i > 0 && i+1 < len(words) {
		return words[i+1]
	}
	return ""
}

// listenOf is the address a serve or proxy command listens on.
func listenOf(args []string) string {
	if i := slices.Index(args, "--listen"); i > 0 && i+1 < len(args) {
		return args[i+1]
	}
	if args[0] == "proxy" {
		return "127.0.0.1:3129"
	}
	return "127.0.0.1:8443"
}

// command makes the process of a tlsbench command in the sandbox.
func (d *docRun) command(ctx context.Context, args []string, planOnly bool) *exec.Cmd {
	var cmd *exec.Cmd
	if planOnly {
		// What run does before it measures, and no more: the commands
		// whose servers or time a test cannot give.
		args = append(slices.Clip(args), "--dry-run")
	}
	switch {
	case d.bin == "":
		cmd = exec.CommandContext(ctx, os.Args[0], args...)
		cmd.Env = append(slices.Clone(d.env), mainEnv+"=1")
	default:
		cmd = exec.CommandContext(ctx, d.bin, args...)
		cmd.Env = d.env
	}
	cmd.Dir = d.dir
	return cmd
}

// exec runs a command to its end, which must be a success.
func (d *docRun) exec(c docCommand, args []string) {
	d.t.Helper()
	d.runCmd(c, args, false)
}

// plan plans a run without measuring it.
func (d *docRun) plan(c docCommand, args []string) {
	d.t.Helper()
	d.runCmd(c, args, true)
}

func (d *docRun) runCmd(c docCommand, args []string, planOnly bool) {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := d.command(ctx, args, planOnly)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	how := "ran"
	if planOnly {
		how = "planned"
	}
	d.t.Logf("%s:%d: %s in %v: tlsbench %s", c.file, c.line, how, time.Since(start).Round(time.Millisecond), strings.Join(args, " "))
	if err != nil && !(measured(args) && machineVerdict(err, stderr.String(), d.dir, args)) {
		d.t.Fatalf("%s:%d: %s: %v\nstdout:\n%s\nstderr:\n%s", c.file, c.line, c.text, err, tail(stdout.String(), 30), tail(stderr.String(), 30))
	}
	if err != nil {
		d.t.Logf("%s:%d: exit 1 for the load on this machine, not the command: %s", c.file, c.line, tail(stderr.String(), 1))
	}
	if c.out != "" {
		if err := os.WriteFile(filepath.Join(d.dir, c.out), stdout.Bytes(), 0o644); err != nil {
			d.t.Fatal(err)
		}
	}
}

// mustRun runs a command the test itself needs.
func (d *docRun) mustRun(what string, args []string) {
	d.t.Helper()
	d.runCmd(docCommand{file: "test", text: what}, args, false)
}

// machineLimits are the verdicts of a measured run that speak of the
// machine rather than of the command: a shared machine under other load
// cannot hold an open-loop rate, and two runs measured under it are not
// judged. A measured run that ends with one of them (exit 1, its results
// written) ran as written.
var machineLimits = []string{
	"failed: the open-loop schedule was not held;",
	"regression gate: nothing left to judge:",
}

// machineVerdict says whether a measured run's failure is one of
// machineLimits, every case's results written.
func machineVerdict(err error, stderr, dir string, args []string) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		return false
	}
	o := slices.Index(args, "--out")
	if fi, err := os.Stat(filepath.Join(dir, args[o+1])); err != nil || fi.Size() == 0 {
		return false
	}
	last := tail(stderr, 1)
	for _, m := range machineLimits {
		if strings.Contains(last, m) {
			return true
		}
	}
	return false
}

// shards runs the shards of one sharded run at once, each cut short.
func (d *docRun) shards(group []docCommand) {
	d.t.Helper()
	now := time.Now()
	type result struct {
		c    docCommand
		args []string
		err  error
		out  *bytes.Buffer
	}
	results := make(chan result, len(group))
	for _, c := range group {
		args := d.short(d.substitute(tlsbenchArgs(c.words), now))
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd := d.command(ctx, args, false)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			results <- result{c, args, cmd.Run(), &out}
		}()
	}
	for range group {
		r := <-results
		d.t.Logf("%s:%d: ran as one of %d shards: %s", r.c.file, r.c.line, len(group), r.c.text)
		if r.err != nil && !machineVerdict(r.err, r.out.String(), d.dir, r.args) {
			d.t.Fatalf("%s:%d: %s: %v\n%s", r.c.file, r.c.line, r.c.text, r.err, tail(r.out.String(), 30))
		}
	}
}

// startService starts a server or proxy and waits until it listens.
func (d *docRun) startService(c docCommand, args []string) {
	d.t.Helper()
	addr := listenOf(args)
	if !slices.Contains(args, "--listen") {
		// The documented default address, at the document's free port.
		_, port, _ := net.SplitHostPort(addr)
		args = append(args, "--listen", "127.0.0.1:"+d.ports[port])
		addr = args[len(args)-1]
	}
	cmd := d.command(context.Background(), args, false)
	s := &service{cmd: cmd, what: c.text, out: &bytes.Buffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = s.out, s.out
	if err := cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	go func() { s.done <- cmd.Wait() }()
	d.services = append(d.services, s)
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			break
		}
		select {
		case err := <-s.done:
			d.t.Fatalf("%s:%d: %s ended before it listened: %v\n%s", c.file, c.line, c.text, err, tail(s.out.String(), 30))
		default:
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("%s:%d: %s does not listen on %s after 30s:\n%s", c.file, c.line, c.text, addr, tail(s.out.String(), 30))
		}
		time.Sleep(20 * time.Millisecond)
	}
	d.t.Logf("%s:%d: started: tlsbench %s", c.file, c.line, strings.Join(args, " "))
}

// stopServices interrupts the servers and proxies, which end with exit 0.
func (d *docRun) stopServices() {
	for _, s := range d.services {
		s.cmd.Process.Signal(syscall.SIGINT)
	}
	for _, s := range d.services {
		select {
		case err := <-s.done:
			if err != nil {
				d.t.Errorf("%s, interrupted: %v\n%s", s.what, err, tail(s.out.String(), 30))
			}
		case <-time.After(20 * time.Second):
			s.cmd.Process.Kill()
			d.t.Errorf("%s did not stop within 20s of an interrupt", s.what)
		}
	}
	d.services = nil
}

// other runs (or names why it does not run) a line of another program.
func (d *docRun) other(c docCommand) {
	d.t.Helper()
	prog := c.words[0]
	how, ok := otherCommands[prog]
	if len(c.words) > 1 {
		if two, found := otherCommands[prog+" "+c.words[1]]; found {
			how, ok = two, true
		}
	}
	if !ok {
		d.t.Fatalf("%s:%d: %q: a program the test does not know; say in otherCommands whether it runs", c.file, c.line, c.text)
	}
	if !how.run {
		d.t.Logf("%s:%d: not run (%s): %s", c.file, c.line, how.why, c.text)
		return
	}
	if how.peer {
		_, err := exec.LookPath(prog)
		switch {
		case err != nil && os.Getenv("CI") != "":
			d.t.Fatalf("%s:%d: %s is not installed and CI is set: %s", c.file, c.line, prog, c.text)
		case err != nil || testing.Short():
			d.t.Logf("%s:%d: not run (%s, a real peer, is not installed or -short is given): %s", c.file, c.line, prog, c.text)
			return
		}
	}
	line := d.substituteText(c.text, time.Now())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Dir, cmd.Env = d.dir, d.env
	out, err := cmd.CombinedOutput()
	d.t.Logf("%s:%d: ran: %s", c.file, c.line, line)
	if err != nil {
		d.t.Fatalf("%s:%d: %s: %v\n%s", c.file, c.line, c.text, err, tail(string(out), 30))
	}
}

// freePort is a loopback TCP port free now (and its UDP twin, for QUIC).
func freePort(t *testing.T) string {
	t.Helper()
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		u, err := net.ListenPacket("udp", "127.0.0.1:"+strconv.Itoa(port))
		l.Close()
		if err == nil {
			u.Close()
			return strconv.Itoa(port)
		}
	}
	t.Fatal("no free loopback port for TCP and UDP")
	return ""
}

// A dry run is refused as the run itself would be, before measuring: a
// documented command with a wrong flag fails.
func TestDryRunRefusesWhatRunRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--tls", "1.3", "--concurrency", "1,8"}, 0, "4 cases: planned at about 12s"},
		{[]string{"run", "--tls", "1.3", "--concurrency", "1", "--iterations", "3"}, 0, "2 cases: each measures a number of iterations"},
		{[]string{"run", "--tls", "1.2", "--resumption", "tickets,session-id", "--resume", "on"}, 0, "handshake/tls1.2/resume/sid/c8  not runnable: the built-in server"},
		{[]string{"run", "--target", "server.invalid:443", "--tls", "1.3", "--concurrency", "1"}, 0, "2 cases: planned at about 6s\n"},
		{[]string{"run", "--concurency", "8"}, 2, "did you mean --concurrency?"},
		{[]string{"run", "--concurrency", "128", "--handshakes", "8"}, 2, "raise --handshakes"},
		{[]string{"run", "--identity", "missing.p12"}, 2, "missing.p12"},
	} {
		cmd := exec.Command(os.Args[0], append(c.args, "--dry-run")...)
		cmd.Env = append(os.Environ(), mainEnv+"=1")
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.code || !strings.Contains(string(out), c.want) {
			t.Errorf("%q --dry-run: exit %d, %q; want exit %d and %q", c.args, code, out, c.code, c.want)
		}
	}
}
