//go:build unix

package proxy

import "syscall"

// errTooManyFiles is the accept failure a burst of connections can cause
// when the descriptor limit is low; it passes.
var errTooManyFiles error = syscall.EMFILE
