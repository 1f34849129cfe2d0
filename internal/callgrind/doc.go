// Package callgrind counts the instructions a tlsbench process (the
// built-in server in its child process, the client) executes, by
// running it under valgrind's callgrind tool: a count that, unlike a CPU
// time on a shared machine, moves by a fraction of a per cent between
// runs of the same work, so that a comparison can resolve changes too
// small for time.
//
// The count is differential and taken by the counted process itself: at
// each reading (a parent's counters request, at every iteration
// boundary) it asks callgrind, through valgrind's client-request
// instruction sequence, to dump its counts, which zeroes them, and adds
// the dump's total to its running count. The reading is synchronous, so
// no instruction of a handshake lands on the wrong side of a boundary,
// unlike callgrind_control, which reaches the process later.
//
// The client is counted the same way in a counted run (RunCounted): the
// tlsbench run re-run under callgrind, which reads its own count at the
// iteration boundaries. It receives no signals (a process group of its
// own, and quietSignals, as every counted process), which can abort
// callgrind in a Go program.
// An external server, which cannot read its own count, is counted from
// outside (Tree): each of its processes is asked for a dump through
// valgrind's gdb server at the boundaries.
//
// Go programs run under valgrind with asynchronous preemption off
// (GODEBUG=asyncpreemptoff=1): its signals are otherwise delivered in
// ways valgrind does not follow.
package callgrind
