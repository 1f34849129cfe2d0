// Package usage measures what a benchmark costs a process: CPU time as the
// operating system accounts it (user + system, all threads), and heap bytes
// allocated as the Go runtime counts them.
//
// CPU time comes from the OS rather than from wall clocks so that client
// and server cost can be told apart even when both run on the same cores:
// getrusage for this process, /proc/PID/stat for another local process
// (and its children, e.g. nginx's master and workers).
//
// It imports nothing of tlsbench.
package usage
