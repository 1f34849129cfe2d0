// Package tempdir makes the private temporary directories that hold a
// process's generated keys (serve's test PKI, a run's), named with the
// process's ID and locked by it while it runs, so that a later start can
// remove those of processes that were killed before they could remove
// their own (SIGKILL, a crash, the machine losing power), and never one
// of a process that still runs, in this PID namespace or another. It
// imports nothing of tlsbench.
package tempdir
