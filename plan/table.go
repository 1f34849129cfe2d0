package plan

import (
	"crypto/tls"
	"fmt"
	"slices"
	"strconv"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// table is every setting of tlsbench run and serve, declared once. Its
// parts are split by topic over table_*.go; the order is the help's.
var table = concat(matrixSettings, caseSettings, serverSettings, serveSettings, targetSettings,
	throughputSettings, proxySettings, openLoopSettings, interleavedSettings, shardingSettings, outputSettings)

func concat(parts ...[]Setting) []Setting {
	var out []Setting
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// matrixSettings are the axes of the matrix.
var matrixSettings = []Setting{
	{
		Name: "mode", Group: GroupMatrix, Commands: Run, Kind: Scalar, Placeholder: "MODE",
		Default: "handshake", Values: []string{ModeHandshake, ModeThroughput}, Modes: Both, Ends: Client,
		Help: "what to measure: handshake (handshake cost) or throughput (bulk transfer, with or without kernel TLS)",
	},
	{
		Name: "tls", Fields: []string{"Versions"}, Group: GroupMatrix, Commands: Run, Kind: List, Placeholder: "LIST",
		Default: "1.2,1.3", Values: versionNames(), Modes: Both, Ends: Client,
		Help: "TLS versions, comma-separated: 1.2, 1.3",
	},
	{
		Name: "resume", Fields: []string{"Resume"}, Group: GroupMatrix, Commands: Run, Kind: List, Placeholder: "LIST",
		Default: "off,on", Values: onOff, Modes: Handshake, Ends: Client,
		Help: "session resumption: off, on, or off,on for both",
	},
	{
		Name: "resume-ratio", Fields: []string{"ResumeRatios", "ResumeRatio"}, Group: GroupMatrix, Commands: Run, Kind: List, Placeholder: "LIST",
		Modes: Handshake, Ends: Client,
		Help: "handshake cases: the share of each iteration's connections that offer a session, 0 (all full) to 1 (all resumed), one case each, comma-separated, e.g. 0,0.8,1 (instead of --resume)",
	},
	{
		Name: "concurrency", Fields: []string{"Concurrency"}, Group: GroupMatrix, Commands: Run, Kind: List, Placeholder: "LIST",
		Default: "1,8,64,128", Modes: Both, Ends: Client,
		Help: "handshakes started at once (wave size), comma-separated",
	},
	{
		Name: "key", Fields: []string{"KeyTypes"}, Group: GroupMatrix, Commands: Run, Kind: List, Placeholder: "LIST",
		Default: "ecdsa-p256", Values: keyTypeNames(), Modes: Both, Ends: BuiltinServer,
		Help: "server key types: ecdsa-p256, ecdsa-p384, rsa-2048, rsa-3072, ed25519",
	},
	{
		Name: "groups", Fields: []string{"Groups"}, Group: GroupMatrix, Commands: Run, Kind: List, Placeholder: "LIST",
		Values: tlsconf.GroupNames(), Modes: Handshake, Ends: Client,
		Help: "key-exchange groups, one case each (default: Go's defaults), e.g. x25519,x25519mlkem768,p256",
	},
	{
		Name: "transport", Fields: []string{"Transports"}, Group: GroupMatrix, Commands: Run, Kind: List, Placeholder: "LIST",
		Default: "tcp", Values: transportNames(), Modes: Handshake, Ends: Client,
		Help: "tcp4 (IPv4 loopback sockets; tcp is the same), tcp6 (IPv6, the built-in server on [::1]), memory (in-process pipes) or quic (QUIC over UDP, TLS 1.3 only), comma-separated",
	},
	{
		Name: "cipher", Fields: []string{"Ciphers"}, Group: GroupMatrix, Commands: Run, Kind: List, Placeholder: "LIST",
		Default: "aes128gcm,aes256gcm,chacha20poly1305", Values: cipherNames(), Modes: Both, Ends: Client,
		Help: "ciphers, one case each: aes128gcm, aes256gcm, chacha20poly1305, comma-separated (ECDHE suites; handshake cases offer Go's defaults unless given; TLS 1.3 aes256gcm is reported as not runnable: tlsbench's client and built-in server cannot negotiate it)",
	},
	{
		Name: "early-data", Fields: []string{"EarlyData"}, Group: GroupMatrix, Commands: Run, Kind: List, Placeholder: "LIST",
		Values: onOff, Modes: Handshake, Ends: Client, Axis: earlyDataAxis,
		Help: "with --transport quic: send the request as TLS 1.3 early data (0-RTT) when resuming: off, on, or off,on for both",
	},
	{
		Name: "resumption", Fields: []string{"Resumption"}, Group: GroupMatrix, Commands: Run, Kind: List, Placeholder: "LIST",
		Values: []string{ResumptionTickets, ResumptionSessionID}, Modes: Handshake, Ends: Client, Axis: resumptionAxis,
		Help: "how TLS 1.2 cases resume: tickets (the default) or session-id (the server's session cache, by the abbreviated handshake of RFC 5246; no session ticket extension is sent), or tickets,session-id for both",
	},
	{
		Name: "key-cache", Fields: []string{"KeyCache"}, Group: GroupMatrix, Commands: Run, Kind: List, Placeholder: "LIST",
		Default: "on", Values: onOff, Modes: Handshake, Ends: BuiltinServer,
		Help: "server key cache: on (keys decrypted once), off (on every full handshake), or on,off to compare",
	},
	{
		Name: "mutual", Fields: []string{"Mutual", "Server.Mutual"}, Group: GroupMatrix, Commands: Run | Serve, Kind: Bool, Modes: Handshake,
		Ends: Client | BuiltinServer,
		Help: "require and verify client certificates (mutual TLS)",
	},
}

// caseSettings say how each case is measured.
var caseSettings = []Setting{
	{
		Name: "handshakes", Fields: []string{"Handshakes"}, Group: GroupCase, Commands: Run, Kind: Scalar, Placeholder: "N",
		Default: "128", Modes: Handshake, Ends: Client,
		Help: "handshakes per iteration (with --rate: starts per window)",
	},
	{
		Name: "iterations", Fields: []string{"Iterations"}, Group: GroupCase, Commands: Run, Kind: Scalar, Placeholder: "N",
		Default: "20", Modes: Both, Ends: Client,
		Help: "measured iterations per case, every one of them when given: --case-time then bounds only those past them, towards --target-error (with --rate: windows, 10 unless given)",
	},
	{
		Name: "warmup", Fields: []string{"Warmup"}, Group: GroupCase, Commands: Run, Kind: Scalar, Placeholder: "N",
		Default: "2", Modes: Both, Ends: Client,
		Help: "discarded warm-up iterations per case, within a quarter of --case-time (a handshake case always runs the first)",
	},
	{
		Name: "case-time", Fields: []string{"CaseTime", "MaxDuration"}, Group: GroupCase, Commands: Run, Kind: Scalar, Placeholder: "DURATION",
		Default: "3s", Modes: Both, Ends: Client,
		Help: "stop measuring a case after about this long, with the iteration that ends nearest to it (at least 2 iterations, and all of --iterations when given; throughput cases are cut at it whatever --iterations says); 0 for no limit",
	},
	{
		Name: "duration", Fields: []string{"Duration"}, Group: GroupCase, Commands: Run, Kind: Scalar, Placeholder: "DURATION",
		Default: "0s", Modes: Both, Ends: Client,
		Help: "handshake cases: each case's measured time, split into --iterations windows (with --rate, each schedules its share of the starts; otherwise waves run until each ends), instead of --handshakes per iteration; throughput: time per iteration, instead of --bytes; e.g. 10s",
	},
	{
		Name: "target-error", Fields: []string{"TargetError"}, Group: GroupCase, Commands: Run, Kind: Scalar, Placeholder: "PCT",
		Default: strconv.FormatFloat(DefaultTargetError*100, 'g', -1, 64) + "%", Modes: Handshake, Ends: Client, OwnChecks: true,
		Help: "measure each case past --iterations until its 99.9% confidence interval is within PCT of the mean, within --case-time; 0% measures --iterations only (the default with --iterations, --quick or --case-time 0)",
	},
	{
		Name: "min-resumption", Fields: []string{"MinResumption"}, Group: GroupCase, Commands: Run, Kind: Scalar, Placeholder: "SHARE",
		Default: "0.99", Modes: Handshake, Ends: Client,
		Help: "share of handshakes that must resume in a resume case, in the warm-up and in every measured iteration (0 disables the check)",
	},
	{
		Name: "max-error-rate", Fields: []string{"MaxErrorRate"}, Group: GroupCase, Commands: Run, Kind: Scalar, Placeholder: "SHARE",
		Default: "0.1%", Modes: Handshake, Ends: Client,
		Help: "largest SHARE of a case's connections that may fail, e.g. 0.1% or 0.001; 100% disables the check",
	},
	{
		Name: "conn-timeout", Fields: []string{"ConnTimeout"}, Group: GroupCase, Commands: Run, Kind: Scalar, Placeholder: "DURATION",
		Default: "10s", Modes: Both, Ends: Client,
		Help: "limit for one connection: connect, handshake, ping, close",
	},
	{
		Name: "client-identities", Fields: []string{"ClientIdentities"}, Group: GroupCase, Commands: Run, Kind: Scalar, Placeholder: "N",
		Default: "1", Modes: Handshake, Ends: Client,
		Help: "with --mutual: distinct client certificates the connections rotate among",
	},
	{
		Name: "session-pool", Fields: []string{"SessionPool"}, Group: GroupCase, Commands: Run, Kind: Scalar, Placeholder: "N",
		Default: "0", Modes: Handshake, Ends: Client,
		Help: "sessions the client keeps per identity (default: the case's concurrency)",
	},
	{
		Name: "ticket-reuse", Fields: []string{"TicketReuse"}, Group: GroupCase, Commands: Run, Kind: Scalar, Placeholder: "REUSE",
		Default: "multi", Values: ticketReuseNames(), Modes: Handshake, Ends: Client,
		Help: "multi: offer a session again and again; single: use each ticket once (servers with single-use tickets)",
	},
	{
		Name: "count", Fields: []string{"Instructions"}, Group: GroupCase, Commands: Run, Kind: Scalar, Placeholder: "WHAT",
		Values: []string{CountInstructions}, Modes: Handshake, Ends: Client | BuiltinServer | Target,
		Help: "instructions: run the client, and the built-in server (and --versus-server's) or the external servers started by --server-cmd and --versus-cmd, under valgrind's callgrind and record each end's instructions per handshake in each iteration (an external server tlsbench does not start has none: the client alone is counted), a count that moves by far less than time between runs; both run about 50 times slower, so unless given --handshakes is then 50, --iterations 10, --case-time 0 and --concurrency 1,8 (see the interleaved guide)",
	},
	{
		Name: "quick", Group: GroupCase, Commands: Run, Kind: Bool, Modes: Both,
		Ends: Client,
		Help: "fewer iterations: the same matrix in about 15 seconds",
	},
}

// earlyDataAxis: with on, a client sends its request as TLS 1.3 early
// data (0-RTT) when it resumes (QUIC cases); the runner's hook gives it
// to the QUIC dialer. The server's policy is one setting of the run, not
// an axis.
var earlyDataAxis = &Axis{
	Param: "early_data", After: "transport", Rank: 8,
	Parse: func(s string) (any, error) { return ParseOnOff(s) },
	Label: func(v any) string { return OnOff(v.(bool)) },
	Segment: func(v any) string {
		if v.(bool) {
			return "0rtt"
		}
		return ""
	},
	Record: func(v any, r *results.Record) { r.EarlyData = results.Bool(v.(bool)) },
	Check: func(vals []any, m *Matrix) error {
		if slices.Contains(vals, any(true)) {
			for _, t := range m.Transports {
				if t != TransportQUIC {
					return &fault{field: "EarlyData", value: "on", format: "Go's TLS over TCP has no 0-RTT: early data needs %s quic", args: []any{fieldRef("Transports")}}
				}
			}
		}
		if !slices.Contains(m.Transports, TransportQUIC) {
			return &fault{field: "EarlyData", format: "early data is sent over QUIC: add %s quic", args: []any{fieldRef("Transports")}}
		}
		return nil
	},
	NotRunnable: func(v any, c *Case) string {
		if v.(bool) && !c.Resume {
			return "not runnable: early data is sent when resuming a session, and a full handshake has none; not measured"
		}
		return ""
	},
	NotRunnableBy: "EarlyData/Resume",
}

// The ways a TLS 1.2 client resumes (the resumption axis).
const (
	ResumptionTickets   = "tickets"
	ResumptionSessionID = "session-id"
)

// ResumesByID is the resumption axis's hook: whether the case's clients
// resume by session ID (the load generator then keeps their sessions).
func ResumesByID(c *Case) bool {
	v, _ := ValueOf[string](c, "resumption")
	return v == ResumptionSessionID
}

// resumptionAxis: with session-id, a TLS 1.2 case's client sends no
// session ticket extension and resumes by session ID, so that a server
// that offers both is measured on its session cache alone. Its full
// cases make the full handshakes of such a client: the server keeps
// the session in its cache instead of sealing a ticket. The load
// generator keeps such sessions itself (crypto/tls has none); Go's
// servers, the built-in one and its proxy included, give no session ID.
var resumptionAxis = &Axis{
	// After the resumption share: a case is .../resume/sid/... or
	// .../mix50/sid/....
	Param: "resumption", After: "resume_ratio", Rank: 7,
	Parse: func(s string) (any, error) {
		switch s {
		case ResumptionTickets, ResumptionSessionID:
			return s, nil
		}
		return nil, fmt.Errorf("want %s, %s or %s,%s, not %q", ResumptionTickets, ResumptionSessionID, ResumptionTickets, ResumptionSessionID, s)
	},
	Label: func(v any) string { return v.(string) },
	Segment: func(v any) string {
		if v == ResumptionSessionID {
			return "sid"
		}
		return ""
	},
	Record: func(v any, r *results.Record) { r.Resumption = v.(string) },
	Check: func(vals []any, m *Matrix) error {
		if slices.Contains(vals, any(ResumptionSessionID)) && !slices.Contains(m.Versions, tls.VersionTLS12) {
			return &fault{field: "Resumption", value: ResumptionSessionID, format: "session IDs resume TLS 1.2 sessions (TLS 1.3 resumes by ticket only): add %s 1.2", args: []any{fieldRef("Versions")}}
		}
		return nil
	},
	NotRunnable: func(v any, c *Case) string {
		switch {
		case v != ResumptionSessionID:
			return ""
		case c.Version != tls.VersionTLS12:
			return "not runnable: session IDs resume TLS 1.2 sessions, and TLS 1.3 resumes by ticket only; not measured"
		case c.Proxy == ProxyBuiltin:
			return "not runnable: the built-in proxy, like every crypto/tls server, resumes TLS 1.2 by ticket only; not measured: give a --target or a proxy by URL that keeps a session cache"
		case c.Proxy == "" && c.KeyType != "":
			return "not runnable: the built-in server, like every crypto/tls server, resumes TLS 1.2 by ticket only; not measured: give a --target that keeps a session cache (nginx's ssl_session_cache, JSSE)"
		}
		return ""
	},
	NotRunnableBy: "Resumption",
}
