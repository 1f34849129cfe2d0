package loadgen

import (
	"context"
	"time"
)

// The schedule's timing. A window's starts are paced by one ordinary
// goroutine that sleeps on Go's timers until each start and hands the
// connection to a worker. Go's timers are checked whenever a processor
// schedules, so they are punctual while the client is busy; but an idle
// runtime waits for them in the network poller, whose timeout is whole
// milliseconds: a start due in 200 µs would be a millisecond late. So,
// where the system allows (pace_linux.go), an alarm clock registered
// with the poller (a timerfd) goes off just after each timer the pacer
// sleeps on, and the poller wakes on time and runs it.
//
// The pacer must not keep a thread or a processor to itself: on a
// machine the server shares, a processor held while sleeping is one the
// connections it starts wait for (the worker a start wakes runs on the
// pacer's processor as soon as the pacer sleeps again).

// alarmLag is how long after a start its alarm goes off: late enough
// that the Go timer it backs up has expired when the poller wakes (or
// the runtime, finding none due, would sleep another millisecond).
const alarmLag = 5 * time.Microsecond

// wakeEarly is how long before a start the pacer wakes, to wait the rest
// by spinning: a wakeup takes the system a few tens of microseconds
// (30 µs on the median, measured here). The spin costs the client that
// much CPU per start at most.
const wakeEarly = 30 * time.Microsecond

// pacer sleeps until a window's starts.
type pacer struct {
	alarm *alarm      // nil where there is none
	timer *time.Timer // the sleeps', reused: no allocation per start
}

func newPacer() *pacer { return &pacer{alarm: newAlarm()} }

// sleepUntil returns true at t or shortly after, or at once when t is
// past; false as soon as ctx ends, spinning or not. At a low rate the
// gap between two starts is long (50 s at 0.02 per second): an
// interrupted run must not wait it out.
func (p *pacer) sleepUntil(ctx context.Context, t time.Time) bool {
	done := ctx.Done()
	if d := time.Until(t) - wakeEarly; d > 0 {
		p.alarm.set(d + alarmLag)
		if p.timer == nil {
			p.timer = time.NewTimer(d)
		} else {
			p.timer.Reset(d) // no stale expiry to drain since Go 1.23
		}
		select {
		case <-p.timer.C:
		case <-done:
			p.timer.Stop()
			return false
		}
	}
	for time.Now().Before(t) {
		select {
		case <-done:
			return false
		default:
		}
	}
	return ctx.Err() == nil
}

// close releases the alarm and the timer.
func (p *pacer) close() {
	p.alarm.close()
	if p.timer != nil {
		p.timer.Stop()
	}
}
