package usage

import (
	"runtime/metrics"
	"time"
)

// Snapshot is the resource usage of this process at one moment.
type Snapshot struct {
	CPU        time.Duration // user + system
	AllocBytes uint64        // cumulative heap bytes allocated
}

// Sub returns the usage between earlier and s.
func (s Snapshot) Sub(earlier Snapshot) Snapshot {
	return Snapshot{CPU: s.CPU - earlier.CPU, AllocBytes: s.AllocBytes - earlier.AllocBytes}
}

// Self returns this process's usage now.
func Self() Snapshot {
	return Snapshot{CPU: SelfCPU(), AllocBytes: HeapAllocated()}
}

const allocMetric = "/gc/heap/allocs:bytes"

// HeapAllocated returns the cumulative bytes allocated on the heap by this
// process (runtime/metrics, which unlike runtime.ReadMemStats does not stop
// the world).
func HeapAllocated() uint64 {
	s := []metrics.Sample{{Name: allocMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
