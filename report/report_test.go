package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

func render(t testing.TB, f Format, recs []results.Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, f, recs); err != nil {
		t.Fatalf("Render(%s): %v", f, err)
	}
	return buf.Bytes()
}

func TestGolden(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, resultsFile)
	for _, f := range tableFormats() {
		t.Run(string(f), func(t *testing.T) {
			checkGolden(t, filepath.Join("testdata", string(f)+".golden"), render(t, f, recs))
		})
	}
}

// TestJSONRoundTrip checks that a results file goes through the json
// format without loss: the bytes are those json.Marshal writes, and the
// records decode to what went in.
func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, resultsFile)
	out := render(t, JSON, recs)
	orig, err := os.ReadFile(resultsFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, orig) {
		t.Errorf("json output differs from the results file it was read from:\n%s", lineDiff(string(orig), string(out)))
	}
	path := filepath.Join(t.TempDir(), "out.jsonl")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	again := loadRecords(t, path)
	if !reflect.DeepEqual(recs, again) {
		for i := range recs {
			if i < len(again) && !reflect.DeepEqual(recs[i], again[i]) {
				t.Errorf("record %d (%s) changed:\n in: %+v\nout: %+v", i, recs[i].Name, recs[i], again[i])
			}
		}
		t.Fatalf("records changed in the round trip (%d in, %d out)", len(recs), len(again))
	}
	// Each line is exactly json.Marshal of its record.
	for i, line := range bytes.SplitAfter(out, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		want, _ := json.Marshal(recs[i])
		if !bytes.Equal(line, append(want, '\n')) {
			t.Errorf("line %d is not json.Marshal(record)", i+1)
		}
	}
}

// jsonFieldNames are the JSON names of the record's fields and of its
// environment's fields (as env.NAME).
func jsonFieldNames() map[string]bool {
	names := map[string]bool{}
	add := func(typ reflect.Type, prefix string) {
		for i := 0; i < typ.NumField(); i++ {
			tag := typ.Field(i).Tag.Get("json")
			name, _, _ := strings.Cut(tag, ",")
			if name != "" && name != "-" {
				names[prefix+name] = true
			}
		}
	}
	add(reflect.TypeFor[results.Record](), "")
	add(reflect.TypeFor[results.Env](), "env.")
	return names
}

func TestCSV(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, resultsFile)
	rows, err := csv.NewReader(bytes.NewReader(render(t, CSV, recs))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(recs)+1 {
		t.Fatalf("got %d rows, want a header and %d records", len(rows), len(recs))
	}
	known := jsonFieldNames()
	col := map[string]int{}
	for i, name := range rows[0] {
		if !known[name] {
			t.Errorf("CSV column %q is not a JSON field name of results.Record", name)
		}
		col[name] = i
	}
	// The scalar fields DESIGN.md names must all be there.
	for _, name := range strings.Fields(`name kind tls_version resume mutual concurrency key_type group
		transport handshakes errors resumed resumption_rate server_resumed mean_us error_us stddev_us
		median_us min_us max_us p50_us p90_us p99_us p999_us handshakes_per_sec client_cpu_us
		server_cpu_us alloc_bytes buffer_bytes cipher ktls_tx ktls_rx mbps client_cpu_pct server_cpu_pct`) {
		if _, ok := col[name]; !ok {
			t.Errorf("CSV has no column %q", name)
		}
	}
	// Every cell is the record's value as JSON has it: null and omitted
	// values are empty, numbers read back exactly.
	for i, r := range recs {
		row := rows[i+1]
		var generic map[string]any
		b, _ := json.Marshal(r)
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&generic); err != nil {
			t.Fatal(err)
		}
		for name, c := range col {
			var v any
			var present bool
			if env, ok := strings.CutPrefix(name, "env."); ok {
				v, present = generic["env"].(map[string]any)[env]
			} else {
				v, present = generic[name]
			}
			cell := row[c]
			switch v := v.(type) {
			case nil:
				if cell != "" {
					t.Errorf("%s: %s is null or omitted in JSON (present=%v) but CSV has %q", r.Name, name, present, cell)
				}
			case json.Number:
				want, _ := v.Float64()
				got, err := strconv.ParseFloat(cell, 64)
				if err != nil || got != want {
					t.Errorf("%s: %s: CSV %q, JSON %s", r.Name, name, cell, v)
				}
			case bool:
				if cell != strconv.FormatBool(v) {
					t.Errorf("%s: %s: CSV %q, JSON %v", r.Name, name, cell, v)
				}
			case string:
				if cell != v {
					t.Errorf("%s: %s: CSV %q, JSON %q", r.Name, name, cell, v)
				}
			default:
				t.Errorf("%s: CSV column %s is not a scalar field (%T)", r.Name, name, v)
			}
		}
	}
}

func TestParseFormat(t *testing.T) {
	t.Parallel()
	for _, f := range Formats() {
		got, err := ParseFormat(string(f))
		if err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	for _, s := range []string{"", "xml", "Table", " json", "HTML"} {
		_, err := ParseFormat(s)
		if err == nil {
			t.Errorf("ParseFormat(%q) succeeded", s)
			continue
		}
		for _, f := range Formats() {
			if !strings.Contains(err.Error(), string(f)) {
				t.Errorf("ParseFormat(%q) error %q does not list %q", s, err, f)
			}
		}
		if !strings.Contains(err.Error(), strconv.Quote(s)) {
			t.Errorf("ParseFormat(%q) error %q does not quote the input", s, err)
		}
	}
	if err := Render(&bytes.Buffer{}, Format("xml"), nil); err == nil {
		t.Error("Render with an unknown format succeeded")
	}
}

func TestNoRecords(t *testing.T) {
	t.Parallel()
	want := map[Format]string{
		Table:    "no results\n",
		Markdown: "no results\n",
		JSON:     "",
		Benchfmt: "",
	}
	for _, f := range tableFormats() {
		got := string(render(t, f, nil))
		if f == CSV {
			if !strings.HasPrefix(got, "name,kind,") || strings.Count(got, "\n") != 1 {
				t.Errorf("csv without records = %q, want the header row only", got)
			}
			continue
		}
		if got != want[f] {
			t.Errorf("%s without records = %q, want %q", f, got, want[f])
		}
	}
}

// TestStream checks that the streaming formats write each record when it is
// added and that the others write nothing before Close, and that a stream
// gives the same bytes as Render.
func TestStream(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, resultsFile)
	for _, f := range tableFormats() {
		var buf bytes.Buffer
		s, err := NewStream(&buf, f)
		if err != nil {
			t.Fatal(err)
		}
		for i := range recs {
			before := buf.Len()
			if err := s.Add(&recs[i]); err != nil {
				t.Fatal(err)
			}
			if wrote := buf.Len() > before; wrote != f.Streams() {
				t.Errorf("%s: Add of record %d wrote output: %v, want %v", f, i, wrote, f.Streams())
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := s.Add(&recs[0]); err == nil {
			t.Errorf("%s: Add after Close succeeded", f)
		}
		if want := render(t, f, recs); !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s: stream output differs from Render", f)
		}
	}
}

func TestPercent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		frac float64
		want string
	}{
		{0, "0%"},
		{1, "100%"},
		{0.375, "37.5%"},
		{0.9921875, "99.2%"},
		{0.99996, ">99.9%"},
		{0.0000001, "<0.1%"},
		{0.5, "50%"},
	} {
		if got := Percent(tc.frac); got != tc.want {
			t.Errorf("percent(%v) = %q, want %q", tc.frac, got, tc.want)
		}
	}
}

func TestNum(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"},
		{1234.5678, "1235"},
		{419.52, "420"},
		{99.96, "100"},
		{45.67, "45.7"},
		{3.456, "3.46"},
		{0.5123, "0.512"},
		{0.0004, "0.000"},
	} {
		if got := Num(tc.v); got != tc.want {
			t.Errorf("num(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestBenchName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, kind string
		procs      int
		want       string
	}{
		{"handshake/tls1.3/resume/c64", results.KindHandshake, 2, "BenchmarkHandshake/tls1.3/resume/c64-2"},
		{"handshake/tls1.2/full/mutual/c1", results.KindHandshake, 1, "BenchmarkHandshake/tls1.2/full/mutual/c1"},
		{"handshake/tls1.3/full/c1/rsa-2048", results.KindHandshake, 1, "BenchmarkHandshake/tls1.3/full/c1/rsa-2048-1"},
		{"handshake/tls1.3/full/c1/rsa-2048", results.KindHandshake, 0, "BenchmarkHandshake/tls1.3/full/c1/rsa-2048-1"},
		{"throughput/tls1.3/aes-128-gcm/16k", results.KindThroughput, 8, "BenchmarkThroughput/tls1.3/aes-128-gcm/16k-8"},
		{"my case", results.KindHandshake, 4, "BenchmarkHandshake/my_case-4"},
	} {
		r := results.Record{Name: tc.name, Kind: tc.kind, Env: results.Env{GOMAXPROCS: tc.procs}}
		if got := BenchName(&r); got != tc.want {
			t.Errorf("benchName(%q, GOMAXPROCS %d) = %q, want %q", tc.name, tc.procs, got, tc.want)
		}
	}
}

// TestBenchfmtEnvChange checks that a record measured in another
// environment is preceded by the configuration lines that changed, and that
// a key the new environment lacks is deleted (an empty value).
func TestBenchfmtEnvChange(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, resultsFile)
	out := string(render(t, Benchfmt, recs))
	for _, want := range []string{
		"goos: linux\ngoarch: amd64\ncpu: AMD EPYC 7B13\ngo: go1.26.0\ntlsbench: 0.1.0-dev\ngomaxprocs: 2\nkernel: 6.1.0-28-cloud-amd64\n",
		"peer-nginx: 1.22.1\npeer-openssl: 3.0.15\n\nBenchmarkHandshake/tls1.3/full/mutual/c8-2 ",
		"peer-nginx:\npeer-openssl:\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("benchfmt output lacks %q", want)
		}
	}
	if n := strings.Count(out, "goos:"); n != 1 {
		t.Errorf("goos: written %d times, want once", n)
	}
}

// tableFormats are the formats this package writes: all but html, which
// package report/html writes.
func tableFormats() []Format {
	return slices.DeleteFunc(Formats(), func(f Format) bool { return f == HTML })
}
