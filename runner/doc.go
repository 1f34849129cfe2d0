// Package runner carries out a benchmark run, handshake or throughput: it
// expands a plan into cases, provides the server each group of cases runs
// against (the built-in server in a child process, in this process over
// in-memory pipes or loopback sockets, or an external target), runs every
// case with loadgen and hands each record to the caller as soon as it is
// measured.
//
// Case axes are data: one table (axes.go) lists every dimension of both
// modes (TLS version, resumption, mutual TLS, key type, key cache, group,
// cipher, transport (QUIC among them), early data, buffer, direction,
// source, kTLS, concurrency or rate and arrival) with its values, its
// segment of the case name, its record parameter and how
// it configures the client and the built-in server. Cases, names,
// params, the grouping of cases by server and the configurations derive
// from it; a new dimension is one entry. One loop (runCases) runs the
// cases of every mode, starting one built-in server per group of cases
// that agree on the axes that configure it.
//
// Validation errors are *plan.Error holding the setting at fault and
// the settings its reason refers to, never command-line flags: they read
// by the table's names (concurrency, target), and only the CLI writes
// them as its flags.
//
// The built-in server runs in a child process so that the operating
// system accounts client and server CPU time separately; its test PKI is
// generated in memory and written, keys 0600, to a private temporary
// directory that is removed at the end of the run. The child (and the
// built-in proxy's) is this program re-run: a program that uses runner
// calls RunChildIfAsked first in main, or names a tlsbench program in
// Plan.Executable; one that does neither fails its run saying so.
package runner
