package scripts

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The image built by the Dockerfile at the root of the repository cannot
// be built here (no container engine), so these tests check what can be
// checked without one: the Dockerfile's stages, that its build context
// (.dockerignore) holds all the build needs, and that its build command,
// run as a plain shell command in a clean clone, builds a program that
// names its version.

// instruction is one Dockerfile instruction, its continuation lines joined.
type instruction struct {
	cmd  string // upper case: FROM, RUN, COPY...
	args string
}

// stage is one FROM and the instructions after it.
type stage struct {
	image, name string
	body        []instruction
}

// readDockerfile reads the stages of a Dockerfile (comments and blank
// lines dropped, continuation lines joined).
func readDockerfile(t *testing.T, file string) []stage {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var stages []stage
	var pending string
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if pending == "" && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if strings.HasSuffix(trimmed, `\`) {
			pending += strings.TrimSuffix(trimmed, `\`) + " "
			continue
		}
		full := pending + trimmed
		pending = ""
		cmd, args, _ := strings.Cut(full, " ")
		in := instruction{cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)}
		if in.cmd == "FROM" {
			f := strings.Fields(in.args)
			s := stage{image: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				s.name = f[2]
			}
			stages = append(stages, s)
			continue
		}
		if len(stages) == 0 {
			if in.cmd != "ARG" {
				t.Fatalf("%s: %s before the first FROM", file, in.cmd)
			}
			continue
		}
		stages[len(stages)-1].body = append(stages[len(stages)-1].body, in)
	}
	return stages
}

// goBuild is the build stage's one RUN of go build, its output path and
// the working directory it runs in.
type goBuild struct {
	command, output, workdir string
	// copied are the sources of the stage's COPY instructions.
	copied []string
}

// checkDockerfile checks the Dockerfile's shape: a build stage from the
// official Go image of go.mod's Go version, whose go build makes a
// static, trimmed program of cmd/tlsbench that takes its version from
// VERSION or the checkout; a small final stage holding that program,
// running tlsbench run by default.
func checkDockerfile(t *testing.T) goBuild {
	t.Helper()
	stages := readDockerfile(t, "../Dockerfile")
	if len(stages) < 2 {
		t.Fatalf("Dockerfile: %d stages, want a build stage and the image's", len(stages))
	}
	build, final := stages[0], stages[len(stages)-1]
	goLine := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(readFile(t, "../go.mod"))
	if goLine == nil {
		t.Fatal("go.mod has no go line")
	}
	if !regexp.MustCompile(`^golang:`+regexp.QuoteMeta(goLine[1])+`([.-]|$)`).MatchString(build.image) || build.name == "" {
		t.Errorf("build stage FROM %s AS %q: want the golang image of Go %s, named", build.image, build.name, goLine[1])
	}
	if !strings.HasPrefix(final.image, "gcr.io/distroless/static") && !strings.HasPrefix(final.image, "debian:bookworm-slim") {
		t.Errorf("final stage FROM %s: want distroless static or debian:bookworm-slim", final.image)
	}

	var gb goBuild
	versionArg := false
	for _, in := range build.body {
		switch {
		case in.cmd == "WORKDIR":
			gb.workdir = in.args
		case in.cmd == "ARG" && strings.HasPrefix(in.args, "VERSION"):
			versionArg = true
		case in.cmd == "COPY":
			f := strings.Fields(in.args)
			for _, src := range f[:len(f)-1] {
				if !strings.HasPrefix(src, "--") {
					gb.copied = append(gb.copied, src)
				}
			}
		case in.cmd == "RUN" && strings.Contains(in.args, "go build"):
			if gb.command != "" {
				t.Fatalf("build stage: two RUNs of go build:\n%s\n%s", gb.command, in.args)
			}
			gb.command = in.args
		}
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-X github.com/tlsbench/tlsbench/results.Version=${VERSION}", "./cmd/tlsbench"} {
		if !strings.Contains(gb.command, want) {
			t.Errorf("build command %q lacks %s", gb.command, want)
		}
	}
	if strings.HasPrefix(gb.command, "[") || strings.HasPrefix(gb.command, "--") {
		t.Fatalf("build command %q: want a plain shell command", gb.command)
	}
	if !versionArg {
		t.Error("build stage: no ARG VERSION before go build")
	}
	if m := regexp.MustCompile(` -o (\S+)`).FindStringSubmatch(gb.command); m == nil || path.IsAbs(m[1]) || !path.IsAbs(gb.workdir) {
		t.Fatalf("build command %q in WORKDIR %q: want -o a path relative to an absolute WORKDIR", gb.command, gb.workdir)
	} else {
		gb.output = m[1]
	}

	checkFinalStage(t, final, build.name, path.Join(gb.workdir, gb.output))
	return gb
}

// checkFinalStage checks that the image's stage holds the program the
// build stage named from builds at built, runs it, and runs tlsbench run
// by default.
func checkFinalStage(t *testing.T, final stage, from, built string) {
	t.Helper()
	var copied, entry, cmd string
	for _, in := range final.body {
		switch in.cmd {
		case "COPY":
			if f := strings.Fields(in.args); len(f) == 3 && f[0] == "--from="+from {
				copied, entry = f[1], f[2]
			}
		case "ENTRYPOINT":
			if in.args != `["`+entry+`"]` {
				t.Errorf("ENTRYPOINT %s: want the program copied, %q", in.args, entry)
			}
		case "CMD":
			cmd = in.args
		}
	}
	if copied != built {
		t.Errorf("final stage copies %q from the build stage, which builds %q", copied, built)
	}
	if cmd != `["run"]` {
		t.Errorf(`CMD %s: want ["run"], tlsbench run against the built-in server`, cmd)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDockerfile: the Dockerfile has its stages, and its build context
// leaves out nothing git tracks — not the files the build copies (go.sum
// among them), nor the .git directory the go command stamps the version
// from, nor any other file, which would make the commit built look
// modified.
func TestDockerfile(t *testing.T) {
	t.Parallel()
	gb := checkDockerfile(t)
	ignore := readDockerignore(t, "../.dockerignore")
	tracked := gitTracked(t, "..")
	for _, src := range gb.copied {
		if src != "." && !tracked[src] {
			t.Errorf("COPY %s: not a file of the repository", src)
		}
	}
	if ignore.excludes(".git") || ignore.excludes(".git/HEAD") {
		t.Error(".dockerignore leaves out .git: the program would not name its commit")
	}
	for name := range tracked {
		if ignore.excludes(name) {
			t.Errorf(".dockerignore leaves out %s, which git tracks", name)
		}
	}
	// What the patterns are meant to leave out, they do.
	for _, name := range []string{"tlsbench", "bin/tlsbench", "runner/runner.test", "cover.out", ".cache/go-build/x"} {
		if !ignore.excludes(name) {
			t.Errorf(".dockerignore keeps %s in the build context", name)
		}
	}
}

// TestDockerBuildCommand runs the Dockerfile's build command, as the
// shell of its build stage would, in a clean clone of this repository:
// the program builds from a checkout and nothing else, and its version
// names the commit, or VERSION when it is given (ARG VERSION). The clone
// shares this machine's Go build cache, so only what changed compiles.
func TestDockerBuildCommand(t *testing.T) {
	gb := checkDockerfile(t)
	if testing.Short() {
		t.Skip("builds tlsbench twice")
	}
	for _, tool := range []string{"go", "git", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s: %v", tool, err)
		}
	}
	top, err := exec.Command("git", "-C", "..", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("needs the tree in a git repository, to clone: %v", err)
	}
	clone := filepath.Join(t.TempDir(), "src")
	run(t, "", "git", "clone", "-q", strings.TrimSpace(string(top)), clone)
	rev := strings.TrimSpace(run(t, clone, "git", "rev-parse", "HEAD"))

	lines := dockerBuild(t, gb, clone, "")
	wantFirst := regexp.MustCompile(`^tlsbench v\S+ \(go\S+ \S+/\S+\)$`)
	if len(lines) != 2 || !wantFirst.MatchString(lines[0]) || strings.Contains(lines[0], "devel") ||
		!strings.HasPrefix(lines[1], "revision "+rev+", committed ") || strings.Contains(lines[1], "uncommitted") {
		t.Fatalf("version of the build command's program:\n%s\nwant a version and the clean revision %s", strings.Join(lines, "\n"), rev)
	}
	const version = "v0.0.0-docker-test"
	if lines := dockerBuild(t, gb, clone, version); !strings.HasPrefix(lines[0], "tlsbench "+version+" (") {
		t.Fatalf("version of the build command's program with VERSION=%s: %q", version, lines[0])
	}
}

// dockerBuild runs gb's command in dir with VERSION set to version (""
// as the ARG's default) and returns the lines the program's version
// command prints. GOFLAGS is only -mod=mod, as in the Go image, where
// the environment sets none that changes the build.
func dockerBuild(t *testing.T, gb goBuild, dir, version string) []string {
	t.Helper()
	cmd := exec.Command("sh", "-c", gb.command)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOFLAGS=") && !strings.HasPrefix(kv, "VERSION=") && !strings.HasPrefix(kv, "CGO_ENABLED=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GOFLAGS=-mod=mod", "VERSION="+version)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", gb.command, err, out)
	}
	out := run(t, dir, filepath.Join(dir, filepath.FromSlash(gb.output)), "version")
	return strings.Split(strings.TrimSpace(out), "\n")
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// gitTracked is the set of files git tracks under root (paths with
// slashes, from root); it skips the test outside a git repository.
func gitTracked(t *testing.T, root string) map[string]bool {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("needs the tree in a git repository: %v", err)
	}
	files := map[string]bool{}
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		files[name] = true
	}
	return files
}

// dockerignore is a .dockerignore's patterns as the container engine
// reads them: relative to the context's root, matching a path or any
// directory above it, ** for any number of directories.
type dockerignore []*regexp.Regexp

func readDockerignore(t *testing.T, file string) dockerignore {
	t.Helper()
	var d dockerignore
	for _, line := range strings.Split(readFile(t, file), "\n") {
		p := strings.TrimSpace(line)
		if p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		if strings.HasPrefix(p, "!") {
			t.Fatalf("%s: exception %q: this test reads none", file, p)
		}
		d = append(d, globRegexp(strings.TrimPrefix(path.Clean(p), "/")))
	}
	return d
}

// globRegexp is the regular expression of a pattern: * and ? within one
// path element, ** across any number of them.
func globRegexp(pattern string) *regexp.Regexp {
	var re strings.Builder
	elems := strings.Split(pattern, "/")
	for i, e := range elems {
		last := i == len(elems)-1
		if e == "**" {
			if last {
				re.WriteString(".*")
			} else {
				re.WriteString("(?:[^/]+/)*")
			}
			continue
		}
		for _, r := range e {
			switch r {
			case '*':
				re.WriteString("[^/]*")
			case '?':
				re.WriteString("[^/]")
			default:
				re.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
		if !last {
			re.WriteString("/")
		}
	}
	return regexp.MustCompile("^" + re.String() + "$")
}

// excludes reports whether name (slashes, from the context's root) is
// left out of the build context.
func (d dockerignore) excludes(name string) bool {
	for p := name; p != "." && p != "/" && p != ""; p = path.Dir(p) {
		for _, re := range d {
			if re.MatchString(p) {
				return true
			}
		}
	}
	return false
}
