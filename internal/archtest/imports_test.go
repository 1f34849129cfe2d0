package archtest

import (
	"bufio"
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/tlsbench/tlsbench/"

// utilities are small internal packages any package but the leaves may
// import: they carry no policy of their own.
var utilities = []string{
	"internal/connerr", "internal/field", "internal/memconn", "internal/procid",
	"internal/tail", "internal/usage", "internal/childproc", "internal/ratelog",
	"internal/acceptloop", "internal/counts", "internal/hostname",
	"internal/tempdir", "internal/callgrind",
}

// testSupport are packages for tests only: no production package may
// import them, or the binary would link testing.
var testSupport = []string{"internal/peers", "internal/testpki", "internal/testchild", "internal/servertest", "internal/testbuild", "report/internal/reporttest"}

// rule is what one package may import of tlsbench, directly.
type rule struct {
	may       []string // tlsbench packages it may import
	utilities bool     // and the utilities
	any       bool     // anything but test support and the command line's packages
}

// rules is DESIGN.md's Architecture table. A package missing from it
// fails the test: a new package states what it may import.
var rules = map[string]rule{
	"cmd/tlsbench": {may: []string{"internal/cli"}},
	// The command line: the root command (dispatch and run) over the
	// packages of the other commands, over their shared base, which
	// knows no command. Of internal/cli/..., a package imports only what
	// its rule names.
	"internal/cli":           {any: true},
	"internal/cli/command":   {any: true},
	"internal/cli/servecmd":  {any: true, may: []string{"internal/cli/command"}},
	"internal/cli/proxycmd":  {any: true, may: []string{"internal/cli/command"}},
	"internal/cli/reportcmd": {any: true, may: []string{"internal/cli/command"}},
	"runner":                 {any: true},
	"loadgen":                {may: []string{"client", "measure", "bulk", "stats", "results", "tlsconf", "internal/ktls"}, utilities: true},
	"measure":                {may: []string{"client", "stats", "results", "tlsconf"}, utilities: true},
	"client":                 {may: []string{"bulk", "tlsconf", "internal/ktls", "client/sessionid"}, utilities: true},
	// TLS 1.2 resumption by session ID: the protocol core under client,
	// standard library and cryptobyte only.
	"client/sessionid": {utilities: true},
	"server":           {may: []string{"bulk", "keys", "pki", "tlsconf", "stats", "internal/ktls"}, utilities: true},
	"proxy":            {may: []string{"keys", "pki", "tlsconf", "internal/ktls"}, utilities: true},
	"bulk":             {},
	"probe":            {may: []string{"client", "client/sessionid", "probe/sessionidcheck", "tlsconf", "pki", "results"}, utilities: true},
	"keys":             {may: []string{"pki", "tlsconf"}, utilities: true},
	"pki":              {utilities: true},
	"tlsconf":          {may: []string{"internal/ktls"}, utilities: true},
	"internal/ktls":    {},
	"stats":            {},
	"results":          {may: []string{"stats"}},

	// The connections of the probe's checks of resumption by session ID.
	"probe/sessionidcheck": {may: []string{"client", "client/sessionid"}, utilities: true},

	// report, the tables of one results file, is the base of the
	// comparison, and the page draws both: imports run report <-
	// report/compare <- report/html, never back.
	"report":         {may: []string{"results", "stats", "report/internal/casenames"}},
	"report/compare": {may: []string{"report", "results", "stats"}},
	"report/html":    {may: []string{"report", "report/compare", "results", "stats"}},
	"merge":          {may: []string{"results", "stats"}},
	// The profiles of measured iterations reach the children through an
	// interface of their own: never the server or the proxy.
	"profile": {may: []string{"results"}, utilities: true},
	"kubejob": {utilities: true},
	// An external server the run starts by command, observed as the
	// measure package observes servers.
	"internal/extserver": {may: []string{"measure"}, utilities: true},
	// The settings and axis tables: below the CLI, runner, loadgen and
	// server, which derive from them; a case names its kTLS mode.
	"plan":              {may: []string{"pki", "tlsconf", "results", "internal/ktls"}, utilities: true},
	"scripts":           {},
	"scripts/attack":    {}, // attacks the tlsbench binary from outside: imports none of it
	"internal/archtest": {},
	// Utilities import nothing of tlsbench but each other.
	"internal/connerr": {}, "internal/field": {}, "internal/memconn": {},
	"internal/procid": {}, "internal/tail": {}, "internal/usage": {},
	"internal/childproc": {may: []string{"internal/field", "internal/tail", "internal/callgrind"}}, "internal/ratelog": {}, "internal/acceptloop": {}, "internal/counts": {}, "internal/hostname": {},
	"internal/tempdir": {}, "internal/callgrind": {},
	// Test support may use what it starts: testchild re-runs the
	// services' own child mains (never the CLI); servertest starts
	// servers and proxies for tests; peers writes the key stores a Java
	// server reads with pki.
	"internal/peers":      {may: []string{"pki"}, utilities: true},
	"internal/testpki":    {may: []string{"pki"}, utilities: true},
	"internal/testchild":  {may: []string{"server", "proxy", "results"}, utilities: true},
	"internal/servertest": {may: []string{"server", "proxy", "pki", "internal/testpki", "internal/testchild"}, utilities: true},
	// testbuild builds the program with the go command: it imports none
	// of it.
	"internal/testbuild": {},
	// The report packages' shared test helpers build records: they must
	// not import report, whose own tests import them.
	"report/internal/reporttest": {may: []string{"results"}},
	// Names a set of cases by the paths they share: a leaf of report's.
	"report/internal/casenames": {},
}

type pkg struct {
	imports []string // tlsbench packages, relative to the module
	deps    []string // all packages, transitively, standard library included
}

// list runs go list over the module: each package's direct imports and
// transitive dependencies, test files excluded.
func list(t *testing.T) map[string]pkg {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the packages' imports: %v", err)
	}
	cmd := exec.Command(goBin, "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .Deps \" \"}}", module+"...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	pkgs := map[string]pkg{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "|", 3)
		if len(parts) != 3 {
			t.Fatalf("go list: unexpected line %q", sc.Text())
		}
		var p pkg
		for _, imp := range strings.Fields(parts[1]) {
			if rel, ok := strings.CutPrefix(imp, module); ok {
				p.imports = append(p.imports, rel)
			}
		}
		p.deps = strings.Fields(parts[2])
		pkgs[strings.TrimPrefix(parts[0], module)] = p
	}
	return pkgs
}

// TestImportRules checks every package's direct tlsbench imports against
// its rule.
func TestImportRules(t *testing.T) {
	t.Parallel()
	for name, p := range list(t) {
		r, ok := rules[name]
		if !ok {
			t.Errorf("package %s has no rule: add it to the rules table (and to DESIGN.md's Architecture table)", name)
			continue
		}
		for _, imp := range p.imports {
			if !r.allows(name, imp) {
				t.Errorf("%s imports %s: DESIGN.md's Architecture table does not allow it", name, imp)
			}
		}
	}
}

func (r rule) allows(from, imp string) bool {
	isTest := slices.Contains(testSupport, from)
	switch {
	case slices.Contains(testSupport, imp):
		return isTest
	case imp == "internal/cli":
		return from == "cmd/tlsbench"
	case strings.HasPrefix(imp, "internal/cli/"):
		return from == "internal/cli" || slices.Contains(r.may, imp)
	case r.any || slices.Contains(r.may, imp):
		return true
	}
	return r.utilities && slices.Contains(utilities, imp)
}

// TestLayering checks the rules that concern whole dependency trees, the
// ones that keep the client apart from the server and tests out of the binary.
func TestLayering(t *testing.T) {
	t.Parallel()
	pkgs := list(t)
	cases := []struct {
		pkg, forbidden, why string
	}{
		{"loadgen", module + "server", "the client must not import the server: the wire protocol both speak lives in bulk"},
		{"client", module + "server", "the client must not import the server: the wire protocol both speak lives in bulk"},
		{"client", module + "loadgen", "a connection knows nothing of the schedules that make it"},
		{"client", module + "measure", "a connection knows nothing of the measurement it is counted in"},
		{"measure", module + "loadgen", "the measurement knows nothing of the schedules that run its iterations"},
		{"measure", module + "server", "the client side must not import the server"},
		{"probe", module + "loadgen", "the probe makes its connections with client; its load comes through Options.Load"},
		{"bulk", module, "the wire protocol imports nothing of tlsbench"},
		{"cmd/tlsbench", "testing", "the binary must not link test support"},
		// text/template (and html/template, built on it) calls reflect's
		// MethodByName with names known only at run time, so the linker
		// keeps every exported method of every type the binary reaches;
		// in this module only test support (internal/peers) uses it.
		{"cmd/tlsbench", "text/template", "the binary must not link text/template: it keeps the linker from dropping unused methods, and only test support uses it"},
	}
	for _, c := range cases {
		p, ok := pkgs[c.pkg]
		if !ok {
			if c.pkg == "bulk" {
				continue // not yet split out of server on this tree
			}
			t.Errorf("package %s not found", c.pkg)
			continue
		}
		for _, d := range p.deps {
			if d == c.forbidden || strings.HasSuffix(c.forbidden, "/") && strings.HasPrefix(d, c.forbidden) {
				t.Errorf("%s depends on %s: %s", c.pkg, d, c.why)
			}
		}
	}
}

// TestLowerTestsDoNotLinkCLI checks that no package's tests but the CLI's
// own link the CLI: a test binary that stands in for tlsbench as a child
// server or proxy runs the services' own child mains (internal/testchild),
// so that a change to the CLI does not rebuild every package's tests.
func TestLowerTestsDoNotLinkCLI(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the tests' dependencies: %v", err)
	}
	// With -test, a package's test binary is listed as "P.test", its
	// dependencies as paths, those rebuilt for it as "P [P.test]".
	cmd := exec.Command(goBin, "list", "-test", "-f", "{{.ImportPath}}|{{join .Deps \",\"}}", module+"...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -test: %v\n%s", err, stderr.Bytes())
	}
	cli := module + "internal/cli"
	mayLink := map[string]bool{cli + ".test": true, module + "cmd/tlsbench.test": true}
	tests := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		bin, deps, _ := strings.Cut(line, "|")
		if !strings.HasSuffix(bin, ".test") {
			continue
		}
		tests++
		if mayLink[bin] {
			continue
		}
		for _, d := range strings.Split(deps, ",") {
			if d == cli || strings.HasPrefix(d, cli+" [") {
				t.Errorf("the tests of %s link %s: start child servers and proxies with internal/testchild, which runs the services' own child mains", strings.TrimSuffix(strings.TrimPrefix(bin, module), ".test"), cli)
				break
			}
		}
	}
	if tests == 0 {
		t.Fatal("go list -test listed no test binaries")
	}
}
