package kubejob_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/tlsbench/tlsbench/kubejob"
)

// hostile are strings YAML could misread unquoted, or that need escapes,
// a block or folding: each must reach the pod exactly as typed.
var hostile = []string{
	"on", "On", "yes", "Yes", "YES", "y", "Y", "n", "NO", "off", "true", "False", "null", "Null", "~", "", "<<",
	"0", "-1", "+1", "0x10", "0o17", "0b101", "-0b1", "017", "1_000", "1e3", "1.5", ".5", "1.", ".inf", "-.Inf", ".nan",
	"1:30", "-1:20:30.5", "12:60", "2026-12-01", "2026-12-01T06:00:00Z", "2001-12-14 21:59:43.10", "2026-1-2t3:4:5Z",
	"- x", "-", "---", "... x", "? x", "?", "?x", ": y", ":", "a: b", "a:b", "a :b", "a:", "a #b", "a#b", "#x",
	"'q'", `"w"`, "a'b", `a"b`, `\`, `a\nb`, "@x", "`x", "%x", "!x", "&a", "*a", "|", "> x", "[a]", "{a}", "a,b", "a[b]",
	"x\ny", "x\n", "\nx", "x\n\n", "\n", "\n\n", " x", "x ", " ", "a  b", "\tx", "x\ty", "x\n y", "x \ny", " x\ny",
	"a\r\nb", "\r", "ü", "日本語", "emoji 😀", "\u2028", "a\u2029b", "a\u0085b", "\u00a0", "\ufeffbom", "a\ufeff",
	"\x1b[0m", "\x07", "a\x7fb", "\U0010FFFF", "\uE000\uFFFD",
	strings.Repeat("word ", 30), strings.Repeat("w ", 60) + "end", strings.Repeat("key: value ", 12),
	strings.Repeat("tab\t ", 25), strings.Repeat("x", 100) + " " + strings.Repeat("y", 100),
	strings.Repeat("two  spaces ", 12), strings.Repeat("line one is long enough to fold ", 4) + "\nline two",
	strings.Repeat("é ", 60), strings.Repeat("'q' ", 30), strings.Repeat(`"q" `, 30), "x" + strings.Repeat(" ", 90) + "y",
}

// apiManifest is the manifest as the API's types and encoder write it:
// what kubejob wrote before it had a writer of its own.
func apiManifest(t *testing.T, s kubejob.Spec) ([]byte, error) {
	t.Helper()
	job, err := kubejob.APIJob(s)
	if err != nil {
		t.Fatal(err)
	}
	return yaml.Marshal(job)
}

// carries reports whether manifest decodes strictly into a Job that has
// s's arguments and image exactly, as JSON carries them (the arguments
// are UTF-8; an image that is not has U+FFFD for each bad byte).
func carries(manifest []byte, s kubejob.Spec) bool {
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(manifest, &job); err != nil || len(job.Spec.Template.Spec.Containers) != 1 {
		return false
	}
	var image string
	if j, err := json.Marshal(s.Image); err != nil || json.Unmarshal(j, &image) != nil {
		return false
	}
	c := job.Spec.Template.Spec.Containers[0]
	return slices.Equal(c.Args, s.Args()) && c.Image == image
}

// checkSameAsAPI holds the manifest for s to the API encoder's, when s
// is accepted; it reports whether it was. Where that encoder fails or
// changes a value (it refuses a DEL or a C1 control character, and reads
// a NEL back as a line break, folded to a space), the manifest must carry
// the value unchanged instead.
func checkSameAsAPI(t *testing.T, s kubejob.Spec) bool {
	t.Helper()
	manifest, err := kubejob.Manifest(s)
	if err != nil {
		if _, apiErr := kubejob.APIJob(s); apiErr == nil {
			t.Fatalf("refused (%v) what the API's types take", err)
		}
		return false
	}
	want, err := apiManifest(t, s)
	if err != nil || !carries(want, s) {
		if !carries(manifest, s) {
			t.Fatalf("the manifest does not carry the arguments %q and image %q unchanged:\n%s", s.Args(), s.Image, manifest)
		}
		return true
	}
	if !bytes.Equal(manifest, want) {
		got, wl := strings.Split(string(manifest), "\n"), strings.Split(string(want), "\n")
		i := 0
		for i < len(got) && i < len(wl) && got[i] == wl[i] {
			i++
		}
		t.Fatalf("manifest differs from the API encoder's from line %d:\n%q\nwant\n%q", i+1,
			strings.Join(got[i:min(i+4, len(got))], "\n"), strings.Join(wl[i:min(i+4, len(wl))], "\n"))
	}
	return true
}

// TestManifestSameAsAPIEncoder: with hostile arguments, images, names
// and memory sizes, the manifest is the one the API's encoder writes,
// byte for byte.
func TestManifestSameAsAPIEncoder(t *testing.T) {
	t.Parallel()
	for _, v := range hostile {
		s := baseSpec()
		s.RunArgs = append(s.RunArgs, "--sni", v, v)
		if !checkSameAsAPI(t, s) {
			t.Errorf("argument %q refused", v)
		}
		s = baseSpec()
		s.Image = v
		checkSameAsAPI(t, s)
	}
	for _, name := range []string{"yes", "no", "on", "null", "true", "0", "123", "1e3", "0x10", "0b1", "017", "1-2"} {
		s := baseSpec()
		s.Name, s.Namespace, s.Secret = name, name, name+".1.5"
		if !checkSameAsAPI(t, s) {
			t.Errorf("name %q refused", name)
		}
	}
	for _, mem := range memories {
		s := baseSpec()
		s.Memory = mem
		checkSameAsAPI(t, s)
	}
}

// TestHostileValuesRoundTrip: the hostile strings come back exactly when
// the manifest is decoded strictly into the API's types.
func TestHostileValuesRoundTrip(t *testing.T) {
	t.Parallel()
	s := baseSpec()
	s.Name, s.Namespace, s.Secret = "yes", "null", "0x10.on"
	s.Image = "reg.example.com:5000/a'b\"c:#1ü"
	for _, v := range hostile {
		s.RunArgs = append(s.RunArgs, "--sni", v)
	}
	manifest, err := kubejob.Manifest(s)
	if err != nil {
		t.Fatal(err)
	}
	job := decodeStrict(t, manifest)
	c := job.Spec.Template.Spec.Containers[0]
	if want := s.Args(); !slices.Equal(c.Args, want) {
		t.Errorf("args came back as\n%q\nwant\n%q", c.Args, want)
	}
	if c.Image != s.Image || job.Name != s.Name || job.Namespace != s.Namespace {
		t.Errorf("image %q, name %q, namespace %q; want %q, %q, %q", c.Image, job.Name, job.Namespace, s.Image, s.Name, s.Namespace)
	}
	if v := job.Spec.Template.Spec.Volumes[1].Secret; v == nil || v.SecretName != s.Secret {
		t.Errorf("secret volume %+v, want secret %q", v, s.Secret)
	}
}

// memories are --memory sizes in the forms the API parses, writes back
// as typed, rewrites, caps or refuses.
var memories = []string{
	"512Mi", "1Gi", "1024Mi", "2048Mi", "1073741824", "1.5Gi", "+1Gi", "01Gi", "0.5Ti", "1e9", "1E9", "1e+9", "1000M",
	"32Mi", "33554432", "33554431", "33554432.5", "33554432000m", "33554432000000000n", "0.03125Gi", "32.000Mi",
	"1E", "1000E", "1e30", "1e31", "12345678901234567890", "99999999999999999999Ei", "8Ei", "7Ei", "1Pi", "1.25Ti",
	"64M", "64000k", "64000000", "64000001", "1.000001G", "100e6", "1e-3", "-1Gi", "0", "00", "-0", "+", "-", ".",
	"", "lots", "1K", "1ki", "1 Gi", "1Gi ", "1.2.3", "1e", "1e3.5", "1Mi5", "0x10", "1..2", "1.e9", ".5Gi",
	"123456789012345678901234567890", "1.5e-12", "99999999999999999999999999999999Ti",
}

// TestQuantitySameAsAPI: sizes are parsed, compared and written back
// as the API machinery does.
func TestQuantitySameAsAPI(t *testing.T) {
	t.Parallel()
	min := resource.MustParse(kubejob.MinMemory)
	for _, m := range memories {
		checkQuantity(t, m, min)
	}
}

func checkQuantity(t *testing.T, m string, min resource.Quantity) {
	t.Helper()
	got, ok := kubejob.ParseQuantity(m)
	want, err := resource.ParseQuantity(m)
	if ok != (err == nil) {
		t.Fatalf("%q: parsed %t, the API: %v", m, ok, err)
	}
	if !ok {
		return
	}
	if got != want.String() {
		t.Errorf("%q written back as %q, the API writes %q", m, got, want.String())
	}
	if c, wc := kubejob.CmpQuantity(m, kubejob.MinMemory), want.Cmp(min); c != wc {
		t.Errorf("%q against %s: %d, the API: %d", m, kubejob.MinMemory, c, wc)
	}
}

// FuzzQuantity: any size is parsed and written back as the API does.
func FuzzQuantity(f *testing.F) {
	for _, m := range memories {
		f.Add(m)
	}
	min := resource.MustParse(kubejob.MinMemory)
	f.Fuzz(func(t *testing.T, m string) {
		// The API's parser and comparison take time and memory in the
		// exponent (1e9999999 is a number of ten million digits): keep
		// exponents small.
		if i := strings.LastIndexAny(m, "eE"); len(m) > 40 || i >= 0 && len(m)-i > 4 {
			return
		}
		checkQuantity(t, m, min)
	})
}

// FuzzManifestSameAsAPI: whatever the run's arguments and the image, the
// manifest is the API encoder's.
func FuzzManifestSameAsAPI(f *testing.F) {
	for _, v := range hostile {
		f.Add(v, "reg/tlsbench:1")
		f.Add("x", v)
	}
	f.Add("0", "\x80") // an image not UTF-8: JSON carries U+FFFD instead
	f.Fuzz(func(t *testing.T, arg, image string) {
		s := baseSpec()
		s.RunArgs = append(s.RunArgs, "--sni", arg)
		s.Image = image
		checkSameAsAPI(t, s)
	})
}

// TestNamesSameAsAPI: names are held to the API's DNS rules.
func TestNamesSameAsAPI(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"a", "tlsbench", "bench-7", "7", "a-", "-a", "A", "a.b", "a..b", ".a", "a_b", "a b", "",
		"tls.pki-1", "a\n", "é", strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a.", 126) + "a",
		strings.Repeat("a.", 126) + "ab", strings.Repeat("a", 64) + ".b"} {
		if got, want := kubejob.IsDNS1123Label(n), len(validation.IsDNS1123Label(n)) == 0; got != want {
			t.Errorf("%q as a DNS label: %t, the API: %t", n, got, want)
		}
		if got, want := kubejob.IsDNS1123Subdomain(n), len(validation.IsDNS1123Subdomain(n)) == 0; got != want {
			t.Errorf("%q as a DNS subdomain: %t, the API: %t", n, got, want)
		}
	}
}
