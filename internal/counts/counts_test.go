package counts

import (
	"maps"
	"testing"
)

func TestCloneAndSub(t *testing.T) {
	t.Parallel()
	if Clone(nil) != nil || Clone(map[string]int64{}) != nil {
		t.Error("an empty map clones to a non-nil one")
	}
	m := map[string]int64{"a": 1}
	c := Clone(m)
	c["a"] = 2
	if m["a"] != 1 {
		t.Error("Clone shares the map")
	}
	got := Sub(map[string]int64{"a": 5, "b": 2, "c": 0}, map[string]int64{"a": 3, "b": 2, "d": 1})
	if want := map[string]int64{"a": 2}; !maps.Equal(got, want) {
		t.Errorf("Sub = %v, want %v", got, want)
	}
	if Sub(map[string]int64{"a": 1}, map[string]int64{"a": 1}) != nil {
		t.Error("no change must give nil")
	}
}

func TestSum(t *testing.T) {
	t.Parallel()
	if got := Sum(map[string]int64{"a": 2, "b": 3}); got != 5 {
		t.Errorf("Sum = %d, want 5", got)
	}
	if Sum(nil) != 0 {
		t.Error("the sum of no counts must be 0")
	}
}

func TestRelayModes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   map[string]int64
		want string
	}{
		{nil, ""},
		{map[string]int64{"client:splice": 4, "origin:splice": 4}, "client:splice,origin:splice"},
		{map[string]int64{"origin:user": 2, "client:ktls": 3, "client:user": 1}, "client:ktls:3,client:user:1,origin:user"},
		{map[string]int64{"client:user": 0, "origin:ktls": 1, "bogus": 5}, "origin:ktls"},
	} {
		if got := RelayModes(tc.in); got != tc.want {
			t.Errorf("RelayModes(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
