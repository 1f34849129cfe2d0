// Package runner carries out a benchmark run: it expands a Plan into
// cases, provides the server each case runs against (the built-in server in
// a child process, in this process over in-memory pipes, or an external
// target), runs every case with loadgen and hands each record to the
// caller as soon as it is measured.
//
// The built-in server runs in a child process so that the operating
// system accounts client and server CPU time separately; its test PKI is
// generated in memory and written, keys 0600, to a private temporary
// directory that is removed at the end of the run.
package runner
