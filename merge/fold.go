package merge

import (
	"fmt"
	"runtime"
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

// fold is one shard's histogram to fold into a merged one, and the
// record and field to blame if it does not decode.
type fold struct {
	into  *histAcc
	enc   string
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

// add queues enc to be folded into h.
func (f *folder) add(h *histAcc, enc string, pos Pos, name, field string) {
	if h.sum == nil {
		h.sum = new(stats.LatencySum)
		h.lane = f.next % f.lanes
		f.next++
	}
	f.queue = append(f.queue, fold{into: h, enc: enc, pos: pos, name: name, field: field})
}

// full reports whether the queue holds a batch.
func (f *folder) full() bool { return len(f.queue) >= foldBatch }

// flush folds every queued histogram. It returns an *Error for the
// first (in the order they were added) that does not decode.
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
			if err := j.into.sum.AddEncoded(j.enc); err != nil {
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
	if first < 0 {
		return nil
	}
	j := f.queue[first]
	return &Error{Pos: j.pos, Case: j.name, Field: j.field, Reason: fmt.Sprintf("does not decode: %v; was the line edited?", err)}
}
