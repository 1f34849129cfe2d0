// Command tlsbench measures what TLS handshakes and bulk transfer cost,
// and verifies that resumption really happens. See README.md.
//
// main is thin: it hands the arguments to internal/cli and exits with the
// status the command returns. It imports internal/cli only, and the binary
// links no test support (no testing package; internal/archtest checks).
package main
