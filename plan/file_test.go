package plan_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/plan"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		want     []plan.Entry
	}{
		{"scalars and comments", "# a plan\n---\ntls: 1.3   # the newest\n\nquick: true\n",
			[]plan.Entry{{Key: "tls", Values: []string{"1.3"}, Line: 3}, {Key: "quick", Values: []string{"true"}, Line: 5}}},
		{"flow list", "resume: [off, on]\n", []plan.Entry{{Key: "resume", Values: []string{"off", "on"}, IsList: true, Line: 1}}},
		{"comma text", "resume: off,on\n", []plan.Entry{{Key: "resume", Values: []string{"off,on"}, Line: 1}}},
		{"block list", "key:\n  - rsa-2048\n  - \"ecdsa-p256\" # quoted\nquick: true", []plan.Entry{
			{Key: "key", Values: []string{"rsa-2048", "ecdsa-p256"}, IsList: true, Line: 1}, {Key: "quick", Values: []string{"true"}, Line: 4}}},
		{"quoted", `sni: "a \"b\" # c\x41"` + "\nca: 'it''s: here'\r\n", []plan.Entry{
			{Key: "sni", Values: []string{`a "b" # cA`}, Line: 1}, {Key: "ca", Values: []string{"it's: here"}, Line: 2}}},
		{"quoted comma in a list", `identity: ["a.pem,a-key.pem", b.p12]`, []plan.Entry{
			{Key: "identity", Values: []string{"a.pem,a-key.pem", "b.p12"}, IsList: true, Line: 1}}},
		{"colon without space", "start-at: 2026-12-01T06:00:00Z", []plan.Entry{{Key: "start-at", Values: []string{"2026-12-01T06:00:00Z"}, Line: 1}}},
	} {
		got, err := plan.Parse([]byte(tc.in))
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Parse = %+v, %v, want %+v", tc.name, got, err, tc.want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"tls 1.3", `line 1: want "key: value"`},
		{"tls: 1.3\ntls: 1.2", "line 2: tls is given twice (first on line 1)"},
		{"  tls: 1.3", "line 1: an indented line"},
		{"\ttls: 1.3", "line 1: a tab"},
		{"tls:\nquick: true", "line 1: tls: no value"},
		{"tls:", "line 1: tls: no value"},
		{"tls: [1.2, 1.3", "line 1: a list without its ]"},
		{"tls: []", "line 1: an empty list"},
		{"tls: [1.2,, 1.3]", "line 1: a value starting with ','"},
		{"tls: &a 1.2", "line 1: a value starting with '&'"},
		{"sni: a: b", `line 1: ": " inside a value`},
		{`sni: "abc`, "line 1: a \"quoted value without its closing \""},
		{`sni: "a\q"`, `line 1: unknown escape \q`},
		{`sni: "a" b`, "line 1: more after the value"},
		{"Tls: 1.3", `line 1: want "key: value"`},
		{"tls: {a: b}", "line 1: a value starting with '{'"},
	} {
		_, err := plan.Parse([]byte(tc.in))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q...", tc.in, err, tc.want)
		}
	}
}

// What Line writes, Parse reads back as it was.
func TestLineRoundTrip(t *testing.T) {
	t.Parallel()
	for _, vals := range [][]string{{"1.3"}, {"a b"}, {" x"}, {"#x"}, {"a: b"}, {"a #b"}, {"[x]"}, {`q"uote`}, {"it's"},
		{"tab\there"}, {"a,b"}, {"-"}, {"- x"}, {"\x01"}, {"off", "on"}, {"a,b", "c]"}} {
		for _, list := range []bool{false, true} {
			if !list && len(vals) > 1 {
				continue
			}
			line := plan.Line("k", vals, list)
			got, err := plan.Parse([]byte(line))
			if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0].Values, vals) || got[0].IsList != list {
				t.Errorf("Line(%q, list %v) = %s, read back as %+v, %v", vals, list, line, got, err)
			}
		}
	}
}

// FuzzParse: Parse never panics, and what it reads, Line writes so that
// Parse reads the same again.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"tls: 1.3\n", "resume: [off, on]\n", "key:\n  - a\n  - 'b'\n", `sni: "a\x41"`, "a: [\"x,y\", z] # c"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := plan.Parse(data)
		if err != nil {
			return
		}
		var b strings.Builder
		for _, e := range entries {
			b.WriteString(plan.Line(e.Key, e.Values, e.IsList) + "\n")
		}
		again, err := plan.Parse([]byte(b.String()))
		if err != nil || len(again) != len(entries) {
			t.Fatalf("%q: written as %q, read back: %v", data, b.String(), err)
		}
		for i := range again {
			if !reflect.DeepEqual(again[i].Values, entries[i].Values) || again[i].Key != entries[i].Key {
				t.Fatalf("%q: entry %d read back as %+v, was %+v", data, i, again[i], entries[i])
			}
		}
	})
}
