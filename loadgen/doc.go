// Package loadgen schedules TLS load: when each connection of a case
// starts, and how a case's iterations follow each other. What one
// connection does is package client's; what an iteration adds up to, the
// gates and the record are package measure's.
//
// A handshake case (measure.HandshakeCase) runs iterations of N
// handshakes started in waves of `concurrency` connections (handshake.go),
// each a connect, a timed handshake, the exchange that reads the TLS 1.3
// ticket and an abortive close (connect.go; over QUIC, quic.go). A resume
// case first primes the session cache so that the first wave has a
// session to offer, and a mix (ResumeRatio) spreads its offers evenly
// over each iteration (mix.go).
//
// An open-loop case (HandshakeCase.Rate) starts its connections on a
// schedule instead, constant or Poisson, each iteration a window of
// equal length, paced by one goroutine on Go's timers, backed by an
// alarm the poller wakes for (pace.go): latency counts from each connection's intended
// start, so that a server that falls behind shows it rather than slowing
// the load (no coordinated omission). Starts that wait for the in-flight
// cap are counted late, those that find no room before their window ends
// dropped (openloop.go).
//
// The measured iterations run until the stop rule ends them: the
// iterations asked for, a target error, the case's time (iterations.go).
// An interleaved run (RunInterleaved) alternates the sides of a
// comparison round by round and keeps a round only when every side
// succeeded (interleave.go); a sharded case starts at a common instant
// and takes its share of the connections (shard.go); SearchRate finds
// the highest rate that meets an SLO (ratesearch.go), JudgeStep reads
// whether a step's record met it (ratejudge.go).
//
// A throughput case (RunThroughput) keeps its connections open and moves
// data over them in the wire protocol of package bulk; its engine, the
// transfer and its record, lives here whole for now (throughput*.go).
//
// loadgen imports no server code: it sees a server through client.Dialer
// and measure.ServerObserver (the adapters to tlsbench's built-in server
// live in runner), and it knows no command line. It may import client,
// measure, stats, results, bulk, tlsconf, internal/ktls and the small
// utilities.
package loadgen
