// Package bulk is the wire protocol of throughput mode, which both ends
// speak: the client's setup and rounds, the server's ack and verdicts
// (laid out in the comment above Magic), the generated stream both ends send
// (PatternAt), the checks of what arrives (Verifier, IntegrityError), and
// the transfer loops with their stall deadline (SendPattern, Receive,
// StallGuard).
//
// The server parses the setup and round messages of any client that
// reaches it, so ParseSetup and ParseRound treat their input as hostile:
// fixed sizes, every field range-checked, no allocation from a length
// the peer gives beyond maxMessage.
//
// It owns no connection, no TLS and no kTLS: the server (package server)
// and the client (package loadgen) do, and import it. It imports nothing
// of tlsbench, so that neither end depends on the other.
package bulk
