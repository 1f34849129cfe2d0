package usage

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// netstatPath is the kernel's extended TCP counters, for this process's
// network namespace.
const netstatPath = "/proc/net/netstat"

// ReadListenQueue returns the machine's listen-queue counters so far.
func ReadListenQueue() (ListenQueue, error) {
	b, err := os.ReadFile(netstatPath)
	if err != nil {
		return ListenQueue{}, err
	}
	q, err := parseNetstat(b)
	if err != nil {
		return ListenQueue{}, fmt.Errorf("%s: %w", netstatPath, err)
	}
	return q, nil
}

// parseNetstat reads ListenOverflows and ListenDrops from the TcpExt
// lines of /proc/net/netstat: a line of names, then a line of values in
// the same order, each beginning "TcpExt:".
func parseNetstat(b []byte) (ListenQueue, error) {
	var names [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 8192), 1<<20)
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 0 || string(f[0]) != "TcpExt:" {
			continue
		}
		if names == nil {
			names = f
			continue
		}
		return listenValues(names, f)
	}
	if err := sc.Err(); err != nil {
		return ListenQueue{}, err
	}
	return ListenQueue{}, fmt.Errorf("no TcpExt counters")
}

// listenValues picks the two counters out of a TcpExt line of values.
func listenValues(names, values [][]byte) (ListenQueue, error) {
	if len(values) != len(names) {
		return ListenQueue{}, fmt.Errorf("TcpExt has %d names and %d values", len(names)-1, len(values)-1)
	}
	var q ListenQueue
	found := 0
	for i, n := range names {
		var dst *int64
		switch string(n) {
		case "ListenOverflows":
			dst = &q.Overflows
		case "ListenDrops":
			dst = &q.Drops
		default:
			continue
		}
		v, err := strconv.ParseInt(string(values[i]), 10, 64)
		if err != nil {
			return ListenQueue{}, fmt.Errorf("TcpExt %s: %v", n, err)
		}
		*dst = v
		found++
	}
	if found != 2 {
		return ListenQueue{}, fmt.Errorf("TcpExt has no ListenOverflows and ListenDrops")
	}
	return q, nil
}
