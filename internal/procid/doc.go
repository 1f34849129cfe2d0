// Package procid names the program a process runs and its version, from
// the executable /proc/PID/exe points to (or, under valgrind, its
// arguments), so that a run against a local server (--server-pid, or one
// started by --server-cmd) records which server it measured. It is part
// of the tlsbench binary, so it must not import testing or any test
// helper (internal/peers, internal/testpki, internal/testchild,
// internal/servertest); it imports nothing of tlsbench.
package procid
