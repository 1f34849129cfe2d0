// Command attack measures how tlsbench's network-facing commands (serve,
// serve --quic and proxy) hold up under a fixed set of bounded attacks on
// loopback, so that the figures in docs/security.md come with the command
// that reproduces them:
//
//	go run ./scripts/attack [-only NAME] [-bin PATH]
//
// It builds ./cmd/tlsbench once into a temporary directory (unless -bin
// names a binary), then for each attack starts a fresh target as a child
// process on a free 127.0.0.1 port, so that the target's peak resident
// set (VmHWM, which cannot be reset) belongs to that attack alone. For
// each attack it reports the target's peak RSS, its CPU seconds during
// the attack, the median time of a legitimate handshake made during the
// attack beside the same handshake on the idle target, and what was seen
// (the target survived or died, the status lines it answered).
//
// Every attack is bounded in count and in time (about 15 s each) and
// sends to 127.0.0.1 only. The proxy's forbidden destinations are tried
// inside a network namespace of their own when the kernel allows one, so
// that a proxy that does dial them reaches a local trap and nothing
// leaves the machine; without a namespace the proxy gets a 1 s dial budget
// and the row says so.
//
// Flags the targets do not have yet are left out: the harness reads each
// command's help and passes a flag only when the command knows it.
// -serve-flags and -proxy-flags add flags to every serve or proxy it
// starts (for example a shorter timeout to be measured).
//
// It runs on Linux only: it reads /proc and uses network namespaces.
package main
