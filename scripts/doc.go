// Package scripts holds the tests of the shell scripts beside it (the test
// command, the kTLS VM, the benchmarks, the local sharded run, the release
// build) and of the Dockerfile's build; it has no code of its own. Its
// tests read results files with the results and stats packages.
package scripts
