package ktls

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// tlsStatPath is the kernel's TLS MIB (exists once the tls module is loaded).
const tlsStatPath = "/proc/net/tls_stat"

// parseTLSStat reads "Name value" lines such as "TlsTxSw 3".
func parseTLSStat(r io.Reader) (map[string]int64, error) {
	m := make(map[string]int64)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("ktls: %s: malformed line %q", tlsStatPath, sc.Text())
		}
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("ktls: %s: %s: %v", tlsStatPath, f[0], err)
		}
		m[f[0]] = v
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("ktls: %s is empty", tlsStatPath)
	}
	return m, nil
}

// StatDelta returns after-before for every counter in after (counters
// missing from before count from 0). TlsCurr* are gauges, the rest totals.
func StatDelta(before, after map[string]int64) map[string]int64 {
	d := make(map[string]int64, len(after))
	for k, v := range after {
		d[k] = v - before[k]
	}
	return d
}
