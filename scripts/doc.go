// Package scripts holds the tests of the shell scripts beside it (the test
// command, the kTLS VM, the benchmarks); it has no code of its own and
// imports nothing of tlsbench.
package scripts
