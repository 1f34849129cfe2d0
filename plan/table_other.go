package plan

import "github.com/tlsbench/tlsbench/results"

// targetSettings configure the client for an external server.
var targetSettings = []Setting{
	{
		Name: "target", Fields: []string{"Target.Addr"}, Group: GroupTarget, Commands: Run, Kind: Scalar, Placeholder: "host:port",
		Modes: Handshake, Ends: Client,
		Help: "measure an external server at host:port instead of the built-in one",
	},
	{
		Name: "sni", Fields: []string{"Target.ServerName"}, Group: GroupTarget, Commands: Run, Kind: Scalar, Placeholder: "NAME",
		Modes: Handshake, Ends: Target, WithIdentity: true,
		Help: "with --target: server name sent and verified (default: the target's host)",
	},
	{
		Name: "ca", Fields: []string{"ServerCA", "Target.CAFile"}, Group: GroupTarget, Commands: Run, Kind: Scalar, Placeholder: "FILE",
		Modes: Handshake, Ends: Target, WithIdentity: true,
		Help: "with --target: CA certificates FILE that verify the server (default: system roots)",
	},
	{
		Name: "insecure", Fields: []string{"Target.Insecure"}, Group: GroupTarget, Commands: Run, Kind: Bool, Modes: Handshake,
		Ends: Target,
		Help: "with --target: do not verify the server's certificate (recorded in the results)",
	},
	{
		Name: "client-cert", Fields: []string{"Target.CertFile"}, Group: GroupTarget, Commands: Run, Kind: Scalar, Placeholder: "FILE",
		Modes: Handshake, Ends: Target,
		Help: "with --target: client certificate chain FILE (PEM) for mutual TLS",
	},
	{
		Name: "client-key", Fields: []string{"Target.KeyFile"}, Group: GroupTarget, Commands: Run, Kind: Scalar, Placeholder: "FILE",
		Modes: Handshake, Ends: Target,
		Help: "with --target: client private key FILE (PEM)",
	},
	{
		Name: "alpn", Group: GroupTarget, Commands: Run, Kind: List, Placeholder: "LIST",
		Modes: Handshake, Ends: Target,
		Help: "with --target: ALPN protocols offered, e.g. http/1.1",
	},
	{
		Name: "server-pid", Fields: []string{"Target.ServerPID"}, Group: GroupTarget, Commands: Run, Kind: Scalar, Placeholder: "PID",
		Default: "0", Modes: Handshake, Ends: Target,
		Help: "with --target: PID of a local server whose CPU (with its child processes, e.g. nginx workers) is sampled from /proc",
	},
	{
		Name: "server-cmd", Fields: []string{"Target.Command"}, Group: GroupTarget, Commands: Run, Kind: Scalar, Placeholder: "COMMAND",
		Modes: Handshake, Ends: Target,
		Help: "with --target: start the server by the shell COMMAND, in the foreground (e.g. nginx -g 'daemon off;'), wait until it accepts connections at --target, sample its CPU as --server-pid does, and stop it after the run; with --count instructions it runs under callgrind and its instructions are counted",
	},
	{
		Name: "request", Fields: []string{"Target.Request", "Request"}, Group: GroupTarget, Commands: Run, Kind: Scalar, Placeholder: "REQUEST",
		Modes: Both, Ends: Target | Proxy,
		Help: "with --target or --proxy: what proves the connection and collects TLS 1.3 tickets: auto (with --target: the target is asked once which of the others it answers), http (HEAD /; the HTTP/2 preface when h2 is negotiated), http-get (GET /, e.g. openssl s_server -www), line (a line echoed, e.g. gnutls-serv --echo), ping (1-byte echo), wait (nothing sent; the TLS 1.3 tickets a server sends unasked are waited for, e.g. openssl s_server without -www), none (TLS 1.3 tickets are then never read) (default: http with a --proxy URL, else auto with --target, else ping); throughput: the wire, bulk or http (GET downloads, POST uploads; default http with a --proxy URL, else bulk)",
	},
}

// throughputSettings are those of --mode throughput.
var throughputSettings = []Setting{
	{
		Name: "buffer", Fields: []string{"Buffers", "Buffer"}, Group: GroupThroughput, Commands: Run, Kind: List, Placeholder: "LIST",
		Default: "4k,16k,64k", Modes: Throughput, Ends: Client | BuiltinServer | Proxy,
		Help: "throughput: application read/write sizes, comma-separated (up to 1m); with --proxy builtin also the proxy's relay buffer",
	},
	{
		Name: "ktls", Fields: []string{"KTLS"}, Group: GroupThroughput, Commands: Run, Kind: List, Placeholder: "LIST",
		Default: "auto", Values: ktlsModeNames(), Modes: Throughput, Ends: Client | BuiltinServer | Proxy,
		Help: "throughput: kernel TLS on both ends: off, auto (user space where the kernel cannot, with the reason in the notes) or on (refused, exit 2, where the kernel cannot); off,on runs both. With --proxy builtin: the proxy's, on both its legs (splice between them where it can), while client and server run user-space TLS; with a --proxy URL only off (the proxy keeps its own configuration)",
	},
	{
		Name: "direction", Fields: []string{"Directions"}, Group: GroupThroughput, Commands: Run, Kind: List, Placeholder: "LIST",
		Default: "download", Values: []string{DirectionDownload, DirectionUpload, DirectionBoth}, Modes: Throughput, Ends: Client,
		Help: "throughput: download (the server sends), upload (the client sends) or both at once, comma-separated",
	},
	{
		Name: "bytes", Fields: []string{"Bytes"}, Group: GroupThroughput, Commands: Run, Kind: Scalar, Placeholder: "SIZE",
		Default: "64MiB", Modes: Throughput, Ends: Client,
		Help: "throughput: SIZE each connection moves per direction per iteration, e.g. 16MiB, 1g",
	},
	{
		Name: "source", Fields: []string{"Source"}, Group: GroupThroughput, Commands: Run, Kind: Scalar, Placeholder: "file:PATH",
		Modes: Throughput, Ends: BuiltinServer,
		Help: "throughput: file:PATH the built-in server sends instead of generated data (with sendfile when kTLS TX is on); download only",
	},
}

// proxySettings are those of a run through a proxy.
var proxySettings = []Setting{
	{
		Name: "proxy", Fields: []string{"Proxy.URL"}, Group: GroupProxy, Commands: Run, Kind: Scalar, Placeholder: "URL",
		Modes: Both, Ends: Proxy,
		Help: "connect through a TLS-intercepting proxy (HTTP CONNECT): builtin (tlsbench's own, started as a child process) or URL http://HOST:PORT (e.g. Squid with SSL bump)",
	},
	{
		Name: "proxy-ca", Fields: []string{"Proxy.CAFile"}, Group: GroupProxy, Commands: Run, Kind: Scalar, Placeholder: "FILE",
		Modes: Both, Ends: Proxy,
		Help: "with --proxy URL: the CA certificates FILE of the proxy's minted certificates, which the client trusts (the built-in proxy's is trusted automatically); the proxy itself must verify the server (Squid: tls_outgoing_options cafile=)",
	},
	{
		Name: "proxy-pid", Fields: []string{"Proxy.PID"}, Group: GroupProxy, Commands: Run, Kind: Scalar, Placeholder: "PID",
		Default: "0", Modes: Both, Ends: Proxy,
		Help: "with --proxy URL: PID of the local proxy whose CPU (with its child processes, e.g. Squid's helpers) is sampled from /proc",
	},
	{
		Name: "mint-cache", Fields: []string{"MintCache"}, Group: GroupProxy, Commands: Run, Kind: List, Placeholder: "LIST",
		Values: onOff, Modes: Handshake, Ends: Proxy,
		Help: "with --proxy builtin, handshake cases: the proxy's cache of minted certificates: on, off (one signature per connection), or on,off to compare",
	},
	{
		Name: "read-fill", Fields: []string{"ReadFill"}, Group: GroupProxy, Commands: Run, Kind: List, Placeholder: "LIST",
		Values: onOff, Modes: Throughput, Ends: Proxy,
		Help: "throughput with --proxy builtin: the proxy reads until its relay buffer is full (on) or relays each read (off); off,on runs both",
	},
}

// openLoopSettings are those of open-loop cases.
var openLoopSettings = []Setting{
	{
		Name: "rate", Fields: []string{"Rates", "Rate"}, Group: GroupOpenLoop, Commands: Run, Kind: List, Placeholder: "LIST",
		Modes: Handshake, Ends: Client,
		Help: "open loop: handshakes started per second, whatever the server does, one case each, comma-separated, e.g. 500,2000 (instead of --concurrency)",
	},
	{
		Name: "arrival", Fields: []string{"Arrival"}, Group: GroupOpenLoop, Commands: Run, Kind: Scalar, Placeholder: "ARRIVAL",
		Default: "constant", Values: []string{results.ArrivalConstant, results.ArrivalPoisson}, Modes: Handshake, Ends: Client,
		Help: "with --rate: how starts are spaced: constant (evenly) or poisson (at random, as independent clients arrive)",
	},
	{
		Name: "max-inflight", Fields: []string{"MaxInflight"}, Group: GroupOpenLoop, Commands: Run, Kind: Scalar, Placeholder: "N",
		Default: "4096", Modes: Handshake, Ends: Client,
		Help: "with --rate: the most connections open at once; a start due beyond it waits (late) or, past its window, is dropped",
	},
	{
		Name: "find-rate", Fields: []string{"FindRate"}, Group: GroupOpenLoop, Commands: Run, Kind: Bool, Modes: Handshake,
		Ends: Client, OwnChecks: true,
		Help: "search each case for the highest open-loop rate that meets --slo (see above)",
	},
	{
		Name: "slo", Fields: []string{"FindRate.SLO"}, Group: GroupOpenLoop, Commands: Run, Kind: Scalar, Placeholder: "GOAL",
		Default: "p99=20ms", Modes: Handshake, Ends: Client, OwnChecks: true,
		Help: "with --find-rate: the goal, a latency percentile from each connection's intended start and the share of connections that may fail, e.g. p99=20ms,error=0.1%",
	},
	{
		Name: "max-rate", Fields: []string{"FindRate.Search.MaxRate"}, Group: GroupOpenLoop, Commands: Run, Kind: Scalar, Placeholder: "RATE",
		Default: "0", Modes: Handshake, Ends: Client, OwnChecks: true,
		Help: "with --find-rate: the highest rate to try, per second (0: no bound)",
	},
}

// interleavedSettings compare sides or runs.
var interleavedSettings = []Setting{
	{
		Name: "versus", Fields: []string{"Versus.Target.Addr"}, Group: GroupInterleaved, Commands: Run, Kind: Scalar, Placeholder: "host:port",
		Modes: Handshake, Ends: Client, OwnChecks: true,
		Help: "with --target: measure a second external server at host:port as side b, interleaved with the target",
	},
	{
		Name: "versus-pid", Fields: []string{"Versus.Target.ServerPID"}, Group: GroupInterleaved, Commands: Run, Kind: Scalar, Placeholder: "PID",
		Default: "0", Modes: Handshake, Ends: Client, OwnChecks: true,
		Help: "with --versus: PID of the local server whose CPU is sampled as side b's",
	},
	{
		Name: "versus-cmd", Fields: []string{"Versus.Target.Command"}, Group: GroupInterleaved, Commands: Run, Kind: Scalar, Placeholder: "COMMAND",
		Modes: Handshake, Ends: Client, OwnChecks: true,
		Help: "with --versus: start side b's server by the shell COMMAND, as --server-cmd starts side a's",
	},
	{
		Name: "versus-server", Fields: []string{"Versus.Executable"}, Group: GroupInterleaved, Commands: Run, Kind: Scalar, Placeholder: "PROGRAM",
		Modes: Handshake, Ends: Client, OwnChecks: true,
		Help: "measure the built-in server of another tlsbench PROGRAM as side b, interleaved with this one's",
	},
	{
		Name: "versus-self", Fields: []string{"Versus.Self"}, Group: GroupInterleaved, Commands: Run, Kind: Bool, Modes: Handshake,
		Ends: Client, OwnChecks: true,
		Help: "measure the same server again as side b (an A/A run: its differences are noise); beside --versus or --versus-server, a second side a that sets the noise floor",
	},
	{
		Name: "versus-set", Fields: []string{"Versus.Settings"}, Group: GroupInterleaved, Commands: Run, Kind: Repeated, Placeholder: "NAME=VALUE",
		Modes: Handshake, Ends: BuiltinServer, OwnChecks: true,
		Help: "with --versus-self or --versus-server: change side b's built-in server, NAME=VALUE (repeat): {versus-settings}",
	},
	{
		Name: "baseline", Group: GroupInterleaved, Commands: Run, Kind: Scalar, Placeholder: "FILE",
		Modes: Both, Ends: Client,
		Help: "after the run, compare its results with the results FILE (as tlsbench compare does)",
	},
	{
		Name: "alpha", Group: GroupInterleaved, Commands: Run | Compare, Kind: Scalar, Placeholder: "P",
		Default: "0.05", Modes: Both, Ends: Client,
		Help: "significance level of the test (Mann-Whitney U; Wilcoxon signed-rank for an interleaved run), between 0 and 1",
	},
	{
		Name: "min-effect", Group: GroupInterleaved, Commands: Run | Compare, Kind: Scalar, Placeholder: "PCT",
		Modes: Both, Ends: Client,
		Help: "call a significant change faster or slower only when larger than PCT (and than the noise floor measured in an interleaved run); smaller is within noise (default 2%)",
	},
	{
		Name: "fail-on-regression", Group: GroupInterleaved, Commands: Run | Compare, Kind: Repeated, Placeholder: "[METRIC=]PCT",
		Modes: Both, Ends: Client,
		Help: "exit 1 when a case is significantly slower than the baseline by more than PCT, e.g. 5%; METRIC=PCT gates a cost per handshake instead, e.g. server-cpu=5%: {regression-metrics} (repeat, or separate with commas)",
	},
	{
		Name: "allow-mismatch", Group: GroupInterleaved, Commands: Run | Compare, Kind: Bool, Modes: Both,
		Ends: Client,
		Help: "compare pairs whose two sides differ in what sets the cost (group, key type, kTLS, session store, ...) instead of marking them not comparable",
	},
	{
		Name: "allow-load", Group: GroupInterleaved, Commands: Run | Compare, Kind: Bool, Modes: Both,
		Ends: Client,
		Help: "judge pairs of two separate runs of which a side was measured while other processes took 10% or more of the machine, instead of leaving them unjudged",
	},
}

// shardingSettings split a run over generators.
var shardingSettings = []Setting{
	{
		Name: "shard", Fields: []string{"Shard"}, Group: GroupSharding, Commands: Run, Kind: Scalar, Placeholder: "I/N",
		Modes: Handshake, Ends: Client, OwnChecks: true,
		Help: "run as shard I/N of a sharded run: this shard's index (from 0) and the number of shards (see above)",
	},
	{
		Name: "shards", Fields: []string{"Shards"}, Group: GroupSharding, Commands: Run, Kind: Scalar, Placeholder: "N",
		Default: "0", Modes: Handshake, Ends: Client, OwnChecks: true,
		Help: "run as one of N shards, the index from JOB_COMPLETION_INDEX (set by Kubernetes Indexed Jobs)",
	},
	{
		Name: "start-at", Fields: []string{"StartAt"}, Group: GroupSharding, Commands: Run, Kind: Scalar, Placeholder: "TIME",
		Modes: Handshake, Ends: Client, OwnChecks: true,
		Help: "begin the first case at TIME: RFC 3339 (2026-12-01T06:00:00Z), or +DURATION from now (+30s, single runs only); in a sharded run, one time for every shard",
	},
}

// outputSettings say where results go.
var outputSettings = []Setting{
	{
		Name: "out", Group: GroupOutput, Commands: Run, Kind: Scalar, Placeholder: "FILE",
		Modes: Both, Ends: Client,
		Help: "write results as JSON lines to FILE, each case as soon as it is measured; - writes them to stdout, and the table, progress and notes to stderr",
	},
	{
		Name: "format", Group: GroupOutput, Commands: Run, Kind: Scalar, Placeholder: "FORMAT",
		Default: "table", Modes: Both, Ends: Client,
		Help: "output on stdout: table, markdown, json, csv, benchfmt, html",
	},
	{
		Name: "wide", Group: GroupOutput, Commands: Run | Report, Kind: Bool, Modes: Both, Ends: Client,
		Help: "the table with every column, however wide; by default a terminal gets the columns that fit its width (a file or a pipe gets all)",
	},
	{
		Name: "profile", Fields: []string{"Profile.Dir"}, Group: GroupOutput, Commands: Run, Kind: Scalar, Placeholder: "DIR",
		Modes: Both, Ends: Client | BuiltinServer | Proxy,
		Help: "write CPU profiles of each case's measured iterations to DIR (created if missing): CASE.client.pprof, and CASE.server.pprof and CASE.proxy.pprof for the built-in server and proxy; CASE is the case name with / as _",
	},
	{
		Name: "profile-alloc", Fields: []string{"Profile.Alloc"}, Group: GroupOutput, Commands: Run, Kind: Bool, Modes: Both,
		Ends: Client,
		Help: "with --profile: allocation profiles too, CASE.client.alloc.pprof ..., each with its start as CASE.client.alloc.base.pprof ... (go tool pprof -base)",
	},
	{
		Name: "config", Commands: Run, Group: GroupOutput, Kind: Scalar, Placeholder: "FILE", Modes: Both, Ends: Client, NotInFile: true,
		Help: "read the run's settings from the plan FILE (key: value lines, the keys named as these flags; see tlsbench help run output); flags given on the command line win",
	},
	{
		Name: "dry-run", Commands: Run, Group: GroupOutput, Kind: Bool, Modes: Both, Ends: Client, NotInFile: true,
		Help: "check the settings and plan the run as it would run (identities, baseline and start time included), list its cases and the time they are planned to take, and exit without connecting to anything",
	},
	{
		Name: "print-config", Commands: Run, Group: GroupOutput, Kind: Bool, Modes: Both, Ends: Client, NotInFile: true,
		Help: "write the run's settings as a plan file on stdout (those given, the others commented out at their defaults) and exit without running; --config of it runs the same",
	},
}
