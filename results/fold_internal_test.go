package results

import (
	"reflect"
	"strings"
	"testing"
)

// TestFoldTagsRefused: a fold tag the merge could not apply is refused
// when the fields are read, naming the field.
func TestFoldTagsRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[struct {
			A *int64 `json:"a" fold:"avg"`
		}](), `field A: fold rule "avg"`},
		{reflect.TypeFor[struct {
			B string `json:"b" fold:"sum"`
		}](), "field B: a string cannot be folded"},
		{reflect.TypeFor[struct {
			C *int64 `json:"c" fold:"per-handshake"`
		}](), "field C: a count is not a figure per handshake"},
	} {
		if _, err := foldTags(tc.typ); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.typ, err, tc.want)
		}
	}
}

// TestFoldedFields: Record's tags read, each field reachable by its
// accessors.
func TestFoldedFields(t *testing.T) {
	t.Parallel()
	var r Record
	byName := map[string]FoldedField{}
	for _, f := range FoldedFields() {
		byName[f.Name] = f
	}
	for name, rule := range map[string]string{"server_resumed": FoldSum, "rate_target": FoldSum, "machine_busy": FoldMax,
		"listen_drops": FoldMax, "client_cpu_us": FoldPerHandshake, "alloc_bytes": FoldPerHandshake} {
		if f, ok := byName[name]; !ok || f.Rule != rule {
			t.Errorf("%s: folded %v (%q), want %q", name, ok, f.Rule, rule)
		}
	}
	n := int64(7)
	byName["late"].SetCount(&r, &n)
	byName["alloc_bytes"].SetFigure(&r, Float(2.5))
	if r.Late == nil || *r.Late != 7 || r.AllocBytes != 2.5 || *byName["alloc_bytes"].Figure(&r) != 2.5 {
		t.Errorf("set through the accessors: late %v, alloc_bytes %v", r.Late, r.AllocBytes)
	}
	byName["alloc_bytes"].SetFigure(&r, nil)
	if r.AllocBytes != 0 {
		t.Errorf("alloc_bytes set to nil: %v, want 0 (every record has it)", r.AllocBytes)
	}
}
