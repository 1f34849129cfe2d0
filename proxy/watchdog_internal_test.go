package proxy

import (
	"testing"
	"time"
)

// TestWatchdogTickFloor: timeouts of a few nanoseconds (which Validate
// refuses, but a caller may skip it) do not make the relay's watchdog
// tick without pause: it waits at least minTick between checks.
func TestWatchdogTickFloor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ idle, write time.Duration }{
		{time.Nanosecond, time.Nanosecond},
		{time.Hour, 3 * time.Nanosecond},
		{time.Nanosecond, time.Hour},
	} {
		w := newWatchdog(tc.idle, tc.write, nil, func(*leg) {})
		w.stop()
		if w.tick < minTick {
			t.Errorf("idle %v, write %v: ticks every %v; want at least %v", tc.idle, tc.write, w.tick, minTick)
		}
	}
	if w := newWatchdog(time.Minute, 30*time.Second, nil, func(*leg) {}); w.tick != 7500*time.Millisecond {
		t.Errorf("idle 1m, write 30s: ticks every %v; want a quarter of the write timeout", w.tick)
	} else {
		w.stop()
	}
}
