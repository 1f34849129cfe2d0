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
	burn := func(d time.Duration) {
		buf := make([]byte, 4096)
		for start := time.Now(); time.Since(start) < d; {
			sum := sha256.Sum256(buf)
			buf[0] = sum[0]
		}
	}
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

// TestWorkUnmatchedEdges: a Pause without a Resume adds nothing.
func TestWorkUnmatchedEdges(t *testing.T) {
	var w usage.Work
	w.Pause()
	if w.CPU != 0 || w.Lost != 0 {
		t.Errorf("a lone Pause measured %v, %d lost", w.CPU, w.Lost)
	}
}
