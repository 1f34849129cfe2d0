package cli

import (
	"github.com/tlsbench/tlsbench/runner"
)

// The flags of QUIC handshake cases and TLS 1.3 early data (tlsbench run
// --transport quic --early-data).

const quicHelp = `
QUIC and 0-RTT: --transport quic runs handshake cases over QUIC on UDP,
TLS 1.3 only (TLS 1.2 cases are listed as not runnable). The built-in
server listens for QUIC on its loopback address too; each connection
sends one byte on a stream and reads the echo and then the stream to its
end, which the server sends after its session ticket. Against a --target,
--request http sends HEAD / over HTTP/3 (ALPN h3) instead. There is no
connect phase: a QUIC handshake starts with the dial.
--early-data off,on adds an axis: with on, a connection that resumes a
session whose ticket permits it sends its request as TLS 1.3 early data
(0-RTT), in its first flight (cases named .../0rtt/...; a full case with
it is not runnable). Each record counts the early data offered, accepted
and rejected, as the client saw it and as the built-in server counted,
and the time from the dial to the first byte of the answer
(first_response), which 0-RTT exists to cut. A case fails (exit 1, its
record kept, marked failed) when the client saw early data accepted that
the server did not count, or the server counted more than the client saw.
A server whose tickets do not permit early data
gets none: its record and the table say so. --early-data-policy says what
the built-in server does with early data: accept it (run's default, as
its clients offer each ticket more than once; the record's
early_data_policy says so), reject it (the client resumes, then sends
its request again, a round trip later) or single-use (accepted on a
ticket's first use, rejected on a replay; tlsbench serve's default);
--versus-self --versus-set early-data-policy=reject measures accepted and
rejected early data in one interleaved run. Go's TLS over TCP has no
0-RTT: --early-data on needs --transport quic.
`

// defineQUICFlags defines --early-data-policy on fs (--early-data is an
// axis of the settings table: defineAxisFlags).
func defineQUICFlags(fs *flagSet, f *runFlags) {
	fs.stringVar(&f.earlyDataPolicy, "early-data-policy", "")
}

// validateQUIC checks the values of the early-data flags; the plan checks
// what they go with.
func validateQUIC(fs *flagSet, f *runFlags) error {
	if !fs.isSet("early-data-policy") {
		return nil
	}
	return checkEarlyDataPolicy(f.earlyDataPolicy)
}

// applyQUIC sets the plan's early-data policy from valid flags.
func applyQUIC(fs *flagSet, f *runFlags, p *runner.Plan) {
	if fs.isSet("early-data-policy") {
		p.EarlyDataPolicy = f.earlyDataPolicy
	}
}
