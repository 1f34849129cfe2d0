package client

import (
	"net"
	"syscall"
)

// waitReadable blocks until c's socket has data to read (or an end: a
// FIN, an error) or c's read deadline passes, without reading: the data
// stays for crypto/tls. watched is false when c has no socket to watch.
func waitReadable(c net.Conn) (arrived, watched bool) {
	sc, ok := socketOf(c).(syscall.Conn) // nil when there is none
	if !ok {
		return false, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false, false
	}
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		// false: nothing yet, the poller waits for the socket.
		return err != syscall.EAGAIN && err != syscall.EINTR
	})
	return err == nil, true
}
