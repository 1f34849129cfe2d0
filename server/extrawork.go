//go:build !tlsbench_extrawork

package server

// extraWork is nothing: a build with the tag tlsbench_extrawork (a test
// server, see extrawork_tag.go) spends a fixed amount of work here after
// each handshake.
func extraWork() {}
