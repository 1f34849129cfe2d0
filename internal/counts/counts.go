// Package counts is the arithmetic of counters kept by name (failures by
// kind, connections by relay mode): copies for snapshots, the
// difference between two snapshots, and totals, as the server and the
// proxy report them.
package counts

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
