// Package counts is the arithmetic of counters kept by name (failures by
// kind, connections by relay mode): copies for snapshots, the
// difference between two snapshots, and totals, as the server and the
// proxy report them.
package counts

import (
	"fmt"
	"sort"
	"strings"
)

// Clone returns a copy of m, nil when m is empty.
func Clone(m map[string]int64) map[string]int64 {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Sub returns now minus before by name, keeping only the names whose
// count changed; nil when none did. Sub(m, nil) is m without its zeros.
func Sub(now, before map[string]int64) map[string]int64 {
	var out map[string]int64
	for k, v := range now {
		if d := v - before[k]; d != 0 {
			if out == nil {
				out = make(map[string]int64)
			}
			out[k] = d
		}
	}
	return out
}

// Sum is the total of m's counts.
func Sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// List formats counts by reason for messages: "unknown 5, revoked 1".
func List(m map[string]int64) string {
	parts := make([]string, 0, len(m))
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// RelayModes writes the proxy's relay counts per leg: "client:splice" when
// every connection's leg used one mode, each mode with its count when
// they differed; legs in order (client, then origin).
func RelayModes(relay map[string]int64) string {
	byLeg := map[string][]string{}
	var legs []string
	for k, n := range relay {
		leg, mode, ok := strings.Cut(k, ":")
		if !ok || n <= 0 {
			continue
		}
		if _, seen := byLeg[leg]; !seen {
			legs = append(legs, leg)
		}
		byLeg[leg] = append(byLeg[leg], fmt.Sprintf("%s:%d", mode, n))
	}
	sort.Strings(legs) // client before origin
	var parts []string
	for _, leg := range legs {
		modes := byLeg[leg]
		sort.Strings(modes)
		if len(modes) == 1 {
			mode, _, _ := strings.Cut(modes[0], ":")
			parts = append(parts, leg+":"+mode)
			continue
		}
		for _, m := range modes {
			parts = append(parts, leg+":"+m)
		}
	}
	return strings.Join(parts, ",")
}
