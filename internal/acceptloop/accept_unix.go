//go:build unix

package acceptloop

import "syscall"

// errTooManyFiles is the accept failure that a burst of connections can
// cause when the descriptor limit is low; it passes.
var errTooManyFiles error = syscall.EMFILE
