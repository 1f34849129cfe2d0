package usage_test

import (
	"crypto/sha256"
	"runtime"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/usage"
)

// TestWorkMeasuresComputeNotWaiting: a stretch that computes counts about
// its CPU time; a wait between stretches (here a sleep, which leaves
// the thread idle) counts nothing, however long.
func TestWorkMeasuresComputeNotWaiting(t *testing.T) {
	if !usage.Supported() {
		t.Skip("no thread CPU clock here")
	}
	runtime.LockOSThread() // so that no stretch is lost to a move
	defer runtime.UnlockOSThread()
	var w usage.Work
	w.Resume()
	burn(30 * time.Millisecond)
	w.Pause()
	time.Sleep(200 * time.Millisecond) // not counted: paused
	w.Pause()                          // a second Pause adds nothing
	w.Resume()
	burn(30 * time.Millisecond)
	w.Pause()
	// Up to 60 ms of CPU in 60 ms of wall time: less when the machine
	// is loaded and the thread waited for a core, never the sleep.
	if w.CPU <= 0 || w.CPU > 80*time.Millisecond || w.Lost != 0 {
		t.Errorf("measured %v (%d stretches lost): want above 0 and no more than the 60 ms computed, none lost", w.CPU, w.Lost)
	}
}

// burn computes for about d.
func burn(d time.Duration) {
	buf := make([]byte, 4096)
	for start := time.Now(); time.Since(start) < d; {
		sum := sha256.Sum256(buf)
		buf[0] = sum[0]
	}
}

// TestWorkSharedThread: a stretch during which another goroutine's
// stretch began or ended on the same thread (as when the first waits on
// a lock and the scheduler runs the second there) is lost, not charged
// with the other's work; the other counts only when it began and ended
// inside the first, alone. Both stretches run here on one locked
// thread, which is what the scheduler does to two goroutines that take
// turns on it.
func TestWorkSharedThread(t *testing.T) {
	if !usage.Supported() {
		t.Skip("no thread CPU clock here")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const d = 20 * time.Millisecond
	for _, tt := range []struct {
		name               string
		run                func(a, b *usage.Work)
		aCounted, bCounted bool
	}{
		{"one after the other", func(a, b *usage.Work) {
			a.Resume()
			burn(d)
			a.Pause()
			b.Resume()
			burn(d)
			b.Pause()
		}, true, true},
		{"b inside a", func(a, b *usage.Work) {
			a.Resume()
			b.Resume()
			burn(d)
			b.Pause()
			a.Pause()
		}, false, true},
		{"overlapping", func(a, b *usage.Work) {
			a.Resume()
			b.Resume()
			burn(d)
			a.Pause()
			b.Pause()
		}, false, false},
	} {
		var a, b usage.Work
		tt.run(&a, &b)
		for _, w := range []struct {
			name    string
			w       *usage.Work
			counted bool
		}{{"a", &a, tt.aCounted}, {"b", &b, tt.bCounted}} {
			if counted := w.w.Lost == 0 && w.w.CPU > 0; counted != w.counted {
				t.Errorf("%s: stretch %s measured %v, %d lost; want it counted: %v", tt.name, w.name, w.w.CPU, w.w.Lost, w.counted)
			}
			if !w.counted && w.w.CPU != 0 {
				t.Errorf("%s: stretch %s lost but measured %v", tt.name, w.name, w.w.CPU)
			}
		}
	}
}

// TestWorkUnmatchedEdges: a Pause without a Resume adds nothing.
func TestWorkUnmatchedEdges(t *testing.T) {
	var w usage.Work
	w.Pause()
	if w.CPU != 0 || w.Lost != 0 {
		t.Errorf("a lone Pause measured %v, %d lost", w.CPU, w.Lost)
	}
}
