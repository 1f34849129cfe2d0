package plan

// groupTexts explain each help group's settings together, before its
// flags: what the settings of the topic do as a whole.
var groupTexts = map[Group]string{
	GroupMatrix: `
Full/resumed mixes: --resume-ratio F[,F...] measures cases in which the
share F of each iteration's (or --rate window's) connections offers a
session and the rest make full handshakes, one case each, in place of
--resume: 0 is a full case, 1 a resume case (held to --min-resumption),
and 0.8 a case named mix80 in which 8 connections in 10 offer, spread
evenly over the iteration. Connections that do not offer still keep the
session they get, so those that do always have one. A mix fails (exit 1,
its record kept, marked failed) when, in any iteration, the client's or
the built-in server's count of resumed handshakes is more than one
connection away from the share asked for. Its record splits handshakes
and the client's phases into the full and the resumed part; CPU figures
are the whole mix's.
--resumption tickets,session-id: how TLS 1.2 cases resume. session-id
sends no session ticket extension and resumes by the session ID the
server gave (its session cache: nginx's ssl_session_cache, JSSE with
tickets off), in cases named .../sid/...; a session the server no longer
has costs its connection a full handshake on a new connection, counted as
not resumed. Go's TLS (the built-in server and proxy) resumes TLS 1.2 by
ticket only, and TLS 1.3 has no session IDs: those session-id cases are
not runnable.
`,
	GroupCase: `
--target-error PCT (default 8%) keeps each case measuring past --iterations
until the half-width of its 99.9% confidence interval is at most PCT of
the mean (of the b/a ratio in an interleaved run), within --case-time (per
side); every record says what ended it. The report marks the error of
each case that did not reach its target with "!" and flags its row
noisy, and ends with how many reached it. On a quiet 2-core machine 14
of the default matrix's 16 cases reach 8% in 3s, and 5% takes
--case-time 6s or more; other load on the machine widens the error more
than any time limit can make up for. The default is off when --iterations is given (then that many are
measured), with --quick, or with --case-time 0; a case measured without a
target is flagged noisy when its error is above 10% of the mean.

`,
	GroupServer: `
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
`,
	GroupProxy: `
Through a proxy (--proxy), the client connects to the proxy with HTTP
CONNECT and does TLS with it; the proxy mints a certificate for the
server's name (localhost for the built-in server) and connects to the
server with TLS itself. The client's figures and the resumption gate then
describe the client-proxy leg, the server's (server CPU, server_resumed)
the proxy-server leg; latencies run from the dial, CONNECT included. With
--proxy builtin, tlsbench starts its own proxy as a child process
(restarted when --buffer, --read-fill, --ktls, --mint-cache or --resume
change), trusts its CA, and has it verify the built-in server with the
run's CA; it resumes its sessions with the server only in resume cases,
so a full case is full on both legs. --buffer is also its relay buffer,
and --ktls is its kernel TLS on both legs while client and server run
user-space TLS. A proxy given by URL verifies the server with its own
configuration (Squid: tls_outgoing_options cafile=...): give the built-in
server an identity it trusts with --identity, and the CA of the proxy's
minted certificates with --proxy-ca.

`,
	GroupOpenLoop: `
Open-loop load: --rate R[,R...] starts handshakes on a schedule, R per
second (one case each, named r<R>, in place of --concurrency), evenly
spaced or, with --arrival poisson, at random like independent clients,
whatever the server does. Latency counts from each connection's intended
start, so a server that falls behind shows it in the percentiles instead
of slowing the load down; the service time from its actual start is
recorded beside it. A start due while --max-inflight connections are
open waits for one to end and is counted late; one that cannot start
before its window ends is dropped. Each case is --iterations windows
(default 10) of --handshakes starts, or --duration split into them. A
case fails (exit 1, its record kept, marked failed) when it started fewer
than 99% of the connections per second asked for, or dropped more than
0.1%: the message says whether the client's CPU or the in-flight cap
(a slow server) held it back.

The highest rate a server sustains: --find-rate searches each open-loop
case for the highest rate that meets --slo (default p99=20ms, at most
0.1% of connections failed): from --rate (default 100 per second) it
doubles the rate until one fails, then halves the gap until it is within
5%. Each rate tried is measured as an open-loop case of --duration
(default 5s in --iterations windows, default 5) and written as its own
record; a last record gives the answer and the rates it lies between. A
rate the client itself cannot hold (its CPU saturated) ends the search:
the answer is then a lower bound, and says so.
`,
	GroupInterleaved: `
Interleaved A/B runs measure every handshake case on two servers in one
run, their iterations alternating a b, b a, a b, ... so that whatever
changes while the run goes on (other load, the CPU's clock) hits both
alike. Side a is the built-in server (or --target); side b is
--versus HOST:PORT (a second external server, with --target),
--versus-server PROGRAM (the built-in server of another tlsbench program,
e.g. one built with another Go), or --versus-self (the same server again:
an A/A run, whose differences are the noise of this machine).
--versus-set NAME=VALUE changes side b's built-in server (key-cache=off,
ticket-keys=FILE, session-capacity=N, session-ttl=D, handshake-timeout=D,
early-data-policy=reject: with --transport quic --early-data on, what the
round trip of rejected early data costs).
--versus-self beside --versus or --versus-server measures side a twice
(a and a2): their difference is the noise floor of the same run. After
the run, side b is compared with side a on the paired per-iteration
ratios: the geometric mean ratio with its 99.9% confidence interval, and
a Wilcoxon signed-rank test. A case is faster or slower only when the
change is significant and larger than the noise floor (the A/A difference
of the same run, or --min-effect); smaller significant changes are
"within noise".
`,
	GroupSharding: `
Sharded runs: one run split over N generators (usually N machines, e.g.
a Kubernetes Indexed Job) against one server. Each shard runs the same
command with --shard I/N (I from 0), or --shards N with I taken from
JOB_COMPLETION_INDEX, and makes its share of the load: a wave of
--concurrency/N (the remainder to the lowest shards), or --rate R/N on
its part of the schedule with --max-inflight/N connections open at most,
so that the shards together start connections as one generator would.
All shards begin the first case at --start-at (one RFC 3339 time for
all), and each later case one slot later: its warm-up and measured
windows plus a gap of a tenth of that, at least a second, for the last
connections, the record, and the next case's session priming. A shard
that begins a case late starts at once and records how late (over
100 ms, with a note). A --start-at already past by more than a second
starts at once with a warning; one so far past that the whole sharded
run would be over is refused. A sharded run needs --target, --duration
and --start-at; throughput cases, --versus, --proxy, --find-rate and
--target-error do not split. Every shard's records carry the same
run_plan, a digest of the cases, the load, the target, the number of
shards and the start, by which tlsbench merge tells runs apart. --out -
writes the records to stdout, for kubectl logs; join the shards' files
with tlsbench merge.
`,
	GroupOutput: `
A plan file (--config FILE) holds a run's settings, one "key: value" a
line, each key named as its flag and its value written as on the command
line: a list as [a, b], as one item a line ("  - a"), or as the comma
text a,b; # starts a comment; quote a value with "..." or '...'. Nothing
is nested. Flags given on the command line win over the file; a key that
is no setting is refused. --print-config writes the run's settings in
this form, so that --config of its output runs the same.
`,
}
