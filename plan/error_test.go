package plan

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func flag(s *Setting) string { return "--" + s.Name }

// TestErrorRenderings: an Error reads by the table's names for a library
// user and by a caller's (the CLI's flags), the settings its reason
// refers to included.
func TestErrorRenderings(t *testing.T) {
	t.Parallel()
	also := Errorf(Settings.ClientCert, nil, "no such file")
	also.Also = []*Setting{Settings.ClientKey}
	for _, tc := range []struct {
		name       string
		err        *Error
		table, cli string
	}{
		{"value", Errorf(Settings.Handshakes, 0, "must be at least %d", 1),
			"handshakes 0: must be at least 1", "--handshakes 0: must be at least 1"},
		{"a reference", Errorf(Settings.Concurrency, 64, "more than the %d handshakes of an iteration (%s)", 8, Settings.Handshakes),
			"concurrency 64: more than the 8 handshakes of an iteration (handshakes)",
			"--concurrency 64: more than the 8 handshakes of an iteration (--handshakes)"},
		{"the reason names its own setting", Errorf(Settings.Insecure, nil, "%s and %s contradict each other: give one", Settings.Insecure, Settings.CA),
			"insecure and ca contradict each other: give one", "--insecure and --ca contradict each other: give one"},
		{"one of several", Errorf(Settings.Rate, nil, "drop %s or %s", OneOf{Settings.Versus, Settings.VersusServer, Settings.VersusSelf}, Settings.Rate),
			"rate: drop versus, versus-server or versus-self or rate", "--rate: drop --versus, --versus-server or --versus-self or --rate"},
		{"several at fault", also, "client-cert/client-key: no such file", "--client-cert/--client-key: no such file"},
		{"no setting at fault", Errorf(nil, nil, "unsupported here; use %s memory", Settings.Transport),
			"unsupported here; use transport memory", "unsupported here; use --transport memory"},
		{"a percent", Errorf(Settings.MaxErrorRate, 2, "must be between 0%% and 100%%"),
			"max-error-rate 2: must be between 0% and 100%", "--max-error-rate 2: must be between 0% and 100%"},
	} {
		if got := tc.err.Error(); got != tc.table {
			t.Errorf("%s: Error() = %q, want %q", tc.name, got, tc.table)
		}
		if got := tc.err.Text(flag); got != tc.cli {
			t.Errorf("%s: Text(flag) = %q, want %q", tc.name, got, tc.cli)
		}
	}
	if e := Errorf(Settings.Handshakes, 0, "x"); !e.Concerns(Settings.Handshakes) || e.Concerns(Settings.Iterations) {
		t.Errorf("Concerns: wrong setting")
	}
	if !also.Concerns(Settings.ClientKey) {
		t.Errorf("Concerns: an error of two settings does not concern the second")
	}
}

// TestSettingsResolve: every setting that validation refers to is one of
// run's in the table.
func TestSettingsResolve(t *testing.T) {
	t.Parallel()
	v := reflect.ValueOf(Settings)
	for i := range v.NumField() {
		s := v.Field(i).Interface().(*Setting)
		if s == nil {
			t.Errorf("Settings.%s: run has no such setting in the table", v.Type().Field(i).Name)
		} else if Lookup(Run, s.Name) != s {
			t.Errorf("Settings.%s: %s is not run's setting", v.Type().Field(i).Name, s.Name)
		}
	}
}

// TestTableFaultsResolve: the table's own checks name settings by their
// fields; each resolves to a setting of the table.
func TestTableFaultsResolve(t *testing.T) {
	t.Parallel()
	m := &Matrix{Transports: []string{TransportTCP}, Values: Values{}}
	for _, s := range tableAxes() {
		if s.Name == "early-data" {
			m.Values[s.Axis.Param] = []any{true}
		}
	}
	err := m.Check()
	e, ok := err.(*Error)
	if !ok || e.Setting != Settings.EarlyData || e.Text(flag) != "--early-data on: Go's TLS over TCP has no 0-RTT: early data needs --transport quic" {
		t.Errorf("early data over TCP: %v (%T), want an Error of early-data naming --transport", err, err)
	}
	// The fields that make a case not runnable, as the axes name them.
	src, err := os.ReadFile("axes.go")
	if err != nil {
		t.Fatal(err)
	}
	var bys []string
	for _, m := range regexp.MustCompile(`notRunnableBy = [^"\n]*"([^"]+)"`).FindAllStringSubmatch(string(src), -1) {
		bys = append(bys, m[1])
	}
	for _, s := range table {
		if s.Axis != nil && s.Axis.NotRunnableBy != "" {
			bys = append(bys, s.Axis.NotRunnableBy)
		}
	}
	if len(bys) < 4 {
		t.Fatalf("found %d NotRunnableBy values; the test no longer finds them", len(bys))
	}
	for _, by := range bys {
		for _, f := range strings.Split(by, "/") {
			if OfField(f) == nil {
				t.Errorf("NotRunnableBy %q: no setting sets %s", by, f)
			}
		}
	}
}

// fieldRefText is how messages once referred to fields ({Target.Addr}),
// for a command to rewrite: references are typed now (plan.Error,
// field.Ref), so that no message is parsed again.
var fieldRefText = regexp.MustCompile(`\{[A-Z][A-Za-z0-9]*(\.[A-Z][A-Za-z0-9]*)*\}`)

// TestNoFieldReferencesInMessages: no string of the module's non-test
// sources refers to a field as {Field}, the probe's advice included
// (its settings are typed too: probe.Setting).
func TestNoFieldReferencesInMessages(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || strings.HasPrefix(n, ".") && n != ".." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && fieldRefText.MatchString(s) {
				t.Errorf("%s: %q refers to a field as %s: refer to it typed (a plan.Settings setting, field.Ref)",
					fset.Position(lit.Pos()), s, fieldRefText.FindString(s))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
