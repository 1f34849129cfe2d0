package merge

import (
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/tlsbench/tlsbench/stats"
)

// folder decodes the shards' histograms into the merged ones, on every
// CPU: decoding is nearly all of a merge's work. Histograms are queued
// as records are added and folded a batch at a time, each merged
// histogram by one goroutine (its lane), in the order they came, so that
// no two goroutines touch one histogram.
type folder struct {
	lanes int
	next  int // the lane of the next merged histogram
	queue []fold
}

// fold is one shard's histogram to fold into a merged one, how many
// latencies its record says it holds (-1: not said), and the record and
// field to blame if it does not decode or holds another number.
type fold struct {
	into  *histAcc
	enc   string
	count int64
	pos   Pos
	name  string
	field string
}

// foldBatch is how many histograms are queued before they are folded:
// enough to keep every lane busy, few enough that the queued records'
// histograms take little memory.
const foldBatch = 1024

func newFolder() *folder {
	return &folder{lanes: min(runtime.GOMAXPROCS(0), 8)}
}

// add queues enc to be folded into h; count is how many latencies it
// should hold (-1: any number).
func (f *folder) add(h *histAcc, enc string, count int64, pos Pos, name, field string) {
	if h.sum == nil {
		h.sum = new(stats.LatencySum)
		h.lane = f.next % f.lanes
		f.next++
	}
	f.queue = append(f.queue, fold{into: h, enc: enc, count: count, pos: pos, name: name, field: field})
}

// full reports whether the queue holds a batch.
func (f *folder) full() bool { return len(f.queue) >= foldBatch }

// flush folds every queued histogram. It returns an *Error for the
// first (in the order they were added) that does not decode, or that
// holds another number of latencies than its record says.
func (f *folder) flush() error {
	defer func() {
		clear(f.queue) // the records' strings may go
		f.queue = f.queue[:0]
	}()
	failed := make([]int, f.lanes)
	errs := make([]error, f.lanes)
	run := func(lane int) {
		failed[lane] = -1
		for i := range f.queue {
			j := &f.queue[i]
			if j.into.lane != lane {
				continue
			}
			if err := j.fold(); err != nil {
				failed[lane], errs[lane] = i, err
				return
			}
		}
	}
	if f.lanes == 1 || len(f.queue) < 2 {
		for lane := range f.lanes {
			run(lane)
		}
	} else {
		var wg sync.WaitGroup
		for lane := range f.lanes {
			wg.Go(func() { run(lane) })
		}
		wg.Wait()
	}
	first := -1
	var err error
	for lane, i := range failed {
		if i >= 0 && (first < 0 || i < first) {
			first, err = i, errs[lane]
		}
	}
	return err
}

// fold adds the histogram to its merged one. Only its lane's goroutine
// touches that one, so the latencies it added are the count's change.
func (j *fold) fold() error {
	before := j.into.sum.Count()
	if err := j.into.sum.AddEncoded(j.enc); err != nil {
		return &Error{Pos: j.pos, Case: j.name, Field: j.field, Reason: fmt.Sprintf("does not decode: %v; was the line edited?", err)}
	}
	if n := j.into.sum.Count() - before; j.count >= 0 && n != j.count {
		return &Error{Pos: j.pos, Case: j.name, Field: j.field, Reason: fmt.Sprintf("holds %d latencies, but %s says %d: a histogram holds one latency per handshake counted; was the line edited?", n, j.countField(), j.count)}
	}
	return nil
}

// countField names the field that counts what the histogram holds:
// handshakes for the case's latency histogram, count for a phase's.
func (j *fold) countField() string {
	if base, ok := strings.CutSuffix(j.field, ".histogram"); ok {
		return base + ".count"
	}
	return "handshakes"
}
