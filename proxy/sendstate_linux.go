//go:build linux

package proxy

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// sendState reads from the kernel what c's peer has taken: the bytes it
// has acknowledged, and whether bytes wait for it (sent and not yet
// acknowledged, or not sent for want of window). It sees every relay
// mode alike, kernel TLS and splice included, and a blocked write as
// well as bytes that wait in the socket while the relay reads. ok is
// false when the kernel cannot say (the connection closed).
func sendState(c net.Conn) (acked uint64, waiting, ok bool) {
	sc, isSC := c.(syscall.Conn)
	if !isSC {
		return 0, false, false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0, false, false
	}
	var info *unix.TCPInfo
	var ierr error
	if err := raw.Control(func(fd uintptr) {
		info, ierr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
	}); err != nil || ierr != nil {
		return 0, false, false
	}
	return info.Bytes_acked, info.Unacked > 0 || info.Notsent_bytes > 0, true
}
