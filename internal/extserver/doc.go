// Package extserver is the external servers a run measures, the ones
// nobody here wrote (OpenSSL's, GnuTLS's, nginx, a JSSE program): a
// server given by its process id (run --server-pid, --versus-pid),
// checked to be the one that listens on the target's port and observed
// by its process tree's CPU; or one started from a shell command (run
// --server-cmd, --versus-cmd), waited for until it accepts connections,
// observed the same way and, when asked, under valgrind's callgrind for
// its instructions (callgrind.Tree), and stopped at the end.
package extserver
