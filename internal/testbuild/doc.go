// Package testbuild builds the tlsbench program for the tests that run
// it as a process of its own: scripts, versus runs of two programs,
// callgrind's counted runs, the version a build reports.
//
// Every such program is built the one way scripts/release.sh builds a
// release (no cgo, paths trimmed), which is also how scripts/test.sh
// builds the kTLS VM's test binaries before the tests run: the packages
// are then compiled once, into the build cache, and each program only
// links. Built without the race detector: under it a program's CPU is a
// multiple of its own, and callgrind would count the detector's work.
//
// It is test support: it imports testing, so no production package may
// import it; internal/archtest checks.
package testbuild
