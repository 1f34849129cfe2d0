// Package archtest holds a test, and only a test, that enforces the import
// rules of the Architecture table in DESIGN.md on the module's packages:
// which tlsbench packages each may import, that the client side (client,
// measure, loadgen) never imports the server and that its layers run one
// way (loadgen over measure over client), that only the command imports internal/cli,
// and of the command line's own packages only those their rules name,
// that no production package imports a test helper, and that the tlsbench
// binary links no testing support. It has no code of its own, so nothing
// imports it.
package archtest
