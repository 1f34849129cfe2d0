package measure

import (
	"errors"
	"testing"
)

func TestCheckIdentities(t *testing.T) {
	t.Parallel()
	hc := &HandshakeCase{Name: "c", ClientIdentities: []string{"a", "b"}}
	tests := []struct {
		name       string
		ok, failed map[int]int64
		served     map[string]int64
		crossed    bool
	}{
		{"exact", map[int]int64{0: 16, 1: 16}, nil, map[string]int64{"a": 16, "b": 16}, false},
		// A connection that failed on the client after the server had
		// finished its handshake is no crossed identity.
		{"client failure after server handshake", map[int]int64{0: 15, 1: 16}, map[int]int64{0: 1}, map[string]int64{"a": 16, "b": 16}, false},
		{"failure the server never saw", map[int]int64{0: 15, 1: 16}, map[int]int64{0: 1}, map[string]int64{"a": 15, "b": 16}, false},
		{"resumed under another identity", map[int]int64{0: 16, 1: 16}, nil, map[string]int64{"a": 32}, true},
		{"more than failures explain", map[int]int64{0: 14, 1: 16}, map[int]int64{0: 1}, map[string]int64{"a": 13, "b": 17}, true},
		{"identity never presented", map[int]int64{0: 16}, nil, map[string]int64{"a": 16, "z": 1}, true},
	}
	for _, tt := range tests {
		err := hc.CheckIdentities(tt.ok, tt.failed, tt.served)
		var ie *IdentityError
		if got := errors.As(err, &ie); got != tt.crossed {
			t.Errorf("%s: IdentityError %v, want %v (err %v)", tt.name, got, tt.crossed, err)
		}
	}
}
