//go:build !linux

package client

import "net"

// waitReadable cannot watch a socket here: the caller reads until its
// deadline instead.
func waitReadable(net.Conn) (arrived, watched bool) { return false, false }
