package results_test

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// docPath is the results contract, written for people who read results
// files.
const docPath = "../docs/results.md"

// TestDocsNameEveryField: every JSON field of Record and Env is
// documented in docs/results.md, in the table of its object, and the
// document names no field that does not exist. A new field fails here
// until it is documented.
func TestDocsNameEveryField(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := documentedFields(string(b))
	for _, obj := range []struct {
		section string
		typ     reflect.Type
	}{
		{"Record", reflect.TypeFor[results.Record]()},
		{"Env", reflect.TypeFor[results.Env]()},
	} {
		fields := jsonFields(obj.typ)
		if len(fields) < 5 {
			t.Fatalf("%s: only %d JSON fields found: %v", obj.section, len(fields), fields)
		}
		for _, f := range fields {
			if !slices.Contains(doc[obj.section], f) {
				t.Errorf("%s field %q is not documented in the %q table of %s", obj.section, f, obj.section, docPath)
			}
		}
		for _, f := range doc[obj.section] {
			if !slices.Contains(fields, f) {
				t.Errorf("%s documents %s field %q, which %s has no JSON field of", docPath, obj.section, f, obj.typ)
			}
		}
		seen := map[string]bool{}
		for _, f := range doc[obj.section] {
			if seen[f] {
				t.Errorf("%s documents %s field %q twice", docPath, obj.section, f)
			}
			seen[f] = true
		}
	}
}

// jsonFields lists the JSON names of t's exported fields, from their
// struct tags (the field's name where the tag gives none).
func jsonFields(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

var fieldRow = regexp.MustCompile("^\\|\\s*`([^`]+)`\\s*\\|")

// documentedFields maps each "## " section of the document (its first
// word) to the field names in the first column of its tables.
func documentedFields(doc string) map[string][]string {
	out := map[string][]string{}
	section := ""
	for _, line := range strings.Split(doc, "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			section, _, _ = strings.Cut(strings.TrimSpace(h), " ")
			continue
		}
		if m := fieldRow.FindStringSubmatch(line); m != nil {
			out[section] = append(out[section], m[1])
		}
	}
	return out
}

// TestDocFieldParsing: the parser finds the rows it must, so a renamed
// heading or a changed table layout cannot make the test above pass
// vacuously.
func TestDocFieldParsing(t *testing.T) {
	t.Parallel()
	doc := "## Record\n\n| field | type |\n|---|---|\n| `name` | string |\n| `kind` | string |\nprose with `code`\n## Env (nested)\n| `goos` | string |\n"
	got := documentedFields(doc)
	if !reflect.DeepEqual(got, map[string][]string{"Record": {"name", "kind"}, "Env": {"goos"}}) {
		t.Fatalf("documentedFields = %v", got)
	}
	type withTags struct {
		A int    `json:"a"`
		B string `json:"b,omitempty"`
		C bool   `json:"-"`
		D int
		e int
	}
	_ = withTags{}.e
	if got := jsonFields(reflect.TypeFor[withTags]()); !reflect.DeepEqual(got, []string{"a", "b", "D"}) {
		t.Fatalf("jsonFields = %v", got)
	}
}
