package loadgen

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// alarm is a timerfd in Go's network poller: when it goes off, a
// runtime waiting in the poller wakes up. Nothing reads it: the wakeup
// is all it is for (the poller is edge-triggered, so every expiry wakes
// it again whatever the count the timerfd holds).
type alarm struct {
	f  *os.File // keeps the descriptor in the poller
	fd int
}

// newAlarm returns an alarm, or nil when the system will not make one:
// the pacing is then only less punctual on an idle machine, which the
// record's start lateness shows.
func newAlarm() *alarm {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	return &alarm{f: os.NewFile(uintptr(fd), "pacing alarm"), fd: fd}
}

// set makes the alarm go off once, after d.
func (a *alarm) set(d time.Duration) {
	if a == nil {
		return
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	_ = unix.TimerfdSettime(a.fd, 0, &spec, nil)
}

func (a *alarm) close() {
	if a != nil {
		a.f.Close()
	}
}
