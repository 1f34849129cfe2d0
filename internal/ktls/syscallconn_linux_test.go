//go:build linux

package ktls

import (
	"reflect"
	"testing"
)

// TestSyscallConnHidesPollFD: the raw connection a Conn gives out lacks
// the PollFD method through which os.File's sendfile and splice paths
// recognise a socket, so io.Copy between a file and a Conn always goes
// through the Conn's own methods (and TLS).
func TestSyscallConnHidesPollFD(t *testing.T) {
	t.Parallel()
	a, _ := tcpPair(t)
	raw, err := a.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := reflect.TypeOf(raw).MethodByName("PollFD"); !ok {
		t.Fatal("the net package's raw conn has no PollFD: this test no longer checks anything")
	}
	c := &Conn{nc: a, raw: raw}
	got, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := reflect.TypeOf(got).MethodByName("PollFD"); ok {
		t.Error("Conn.SyscallConn exposes PollFD")
	}
	var fd uintptr
	if err := got.Control(func(f uintptr) { fd = f }); err != nil || fd == 0 {
		t.Errorf("Control: fd %d, %v", fd, err)
	}
}
