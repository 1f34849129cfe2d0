// Package profile takes the profiles of a case's measured iterations:
// CPU profiles, and with Settings.Alloc allocation profiles, of this
// process (the client), of the built-in server's child process and of
// the built-in proxy's, begun and ended by the case's Measuring hook so
// that they cover the measured iterations only (not priming, not the
// warm-up). A profile that cannot be written is a note on the case's
// record, not a failure of the benchmark.
//
// The children are reached through the Child interface, which the
// server's and the proxy's child controls satisfy: this package starts
// no process and imports neither the server nor the proxy. It imports
// results (the notes go on records), internal/childproc (this process's
// allocation profile is written as the children's are) and
// internal/field (Validate's errors name the plan's fields).
package profile
