//go:build !linux

package loadgen

import "time"

// alarm is absent where there is no timerfd: Go's timers alone pace.
type alarm struct{}

func newAlarm() *alarm           { return nil }
func (*alarm) set(time.Duration) {}
func (*alarm) close()            {}
