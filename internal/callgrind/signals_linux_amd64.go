package callgrind

import (
	"os/signal"
	"syscall"
	"unsafe"
)

// quietSignals keeps the signals a counted process would otherwise
// receive from it: a child's end (SIGCHLD) and a write to a closed connection
// (SIGPIPE). Go handles every signal, on a stack of its own, and
// callgrind, which follows the call stack by the stack pointer, can
// abort at such a handler's return (valgrind 3.19 here, at the first
// child's exit). SIGCHLD goes back to the kernel's default, which
// discards it without a handler and keeps the child's exit status for
// Wait (SIG_IGN would not: the kernel would reap the child itself);
// SIGPIPE is ignored, and the write fails with EPIPE, as Go's own
// handling makes it for any connection.
func quietSignals() {
	signal.Ignore(syscall.SIGPIPE)
	// rt_sigaction(SIGCHLD, {SIG_DFL}, nil): behind the runtime's
	// back, which installs its handler once at start and never looks
	// again while SIGCHLD is not asked for (os/signal.Notify).
	var act struct{ handler, flags, restorer, mask uint64 }
	syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(syscall.SIGCHLD), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
}
