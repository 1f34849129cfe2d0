package results

import (
	"maps"
	"time"
)

// Sides of an interleaved A/B run (Record.Side).
const (
	SideA  = "a"
	SideB  = "b"
	SideA2 = "a2"
)

// What ended a case's measured iterations (Record.StoppedBy).
const (
	// StoppedIterations: all the planned iterations were measured (no
	// target error was set).
	StoppedIterations = "iterations"
	// StoppedTargetError: the target error was reached, after at least
	// the planned iterations.
	StoppedTargetError = "target-error"
	// StoppedCaseTime: the case's time limit ended it, before the planned
	// iterations or before the target error was reached.
	StoppedCaseTime = "case-time"
	// StoppedIterationCap: a case with a target error and no time limit
	// reached the most iterations a case may measure (MaxIterations).
	StoppedIterationCap = "iteration-cap"
	// StoppedInterrupted: the run was interrupted (Ctrl-C).
	StoppedInterrupted = "interrupted"
	// StoppedFailed: an iteration failed outright, or a server of the
	// case (of any side) died; the case failed.
	StoppedFailed = "failed"
)

// MaxIterations bounds the measured iterations of a case that measures
// towards a target error without a time limit.
const MaxIterations = 1000

// Kinds of benchmark case.
const (
	KindHandshake  = "handshake"
	KindThroughput = "throughput"
	// KindRateStep is one rate measured by a search for the highest
	// rate that meets a latency goal (tlsbench run --find-rate): an
	// open-loop handshake record, with SLO and SLOMet.
	KindRateStep = "rate-step"
	// KindRateSearch is the answer of such a search: RateSustained,
	// RateFailed, SearchLimit and Steps, with the case's parameters and
	// no figures of its own (its steps' records hold them).
	KindRateSearch = "rate-search"
)

// Record is the result of one benchmark case. Times are microseconds per
// handshake unless the field name says otherwise. Pointer fields are null in
// JSON when the value is unknown (for example the server's CPU time when the
// server is not a local process tlsbench can observe).
type Record struct {
	// Identity of the case.
	Name        string `json:"name"` // e.g. handshake/tls1.3/resume/mutual/c64
	Kind        string `json:"kind"` // KindHandshake, KindThroughput, KindRateStep or KindRateSearch
	TLSVersion  string `json:"tls_version"`
	Resume      bool   `json:"resume"` // with ResumeRatio: true for any share above 0
	Mutual      bool   `json:"mutual"`
	Concurrency int    `json:"concurrency"`
	KeyType     string `json:"key_type"`
	// Group is the key-exchange group actually negotiated (not the one
	// asked for). When the connections of a handshake case disagreed it
	// lists each group with its count of handshakes, sorted, e.g.
	// "p256:8,x25519:120"; "none" for a handshake without a key exchange
	// (a TLS 1.2 resumption); empty when no handshake succeeded. A
	// throughput case records its first connection's group.
	Group     string `json:"group"`
	Transport string `json:"transport"` // tcp, tcp6, memory or quic
	Target    string `json:"target,omitempty"`
	// Request is the exchange after each handshake with an external
	// target (ping, line, http, http-get, none); absent for the built-in
	// server, which is always pinged. A throughput case records "http"
	// when its data moved as HTTP/1.1 requests (absent for the binary
	// protocol). It is part of what a case costs.
	Request string `json:"request,omitempty"`
	// RequestAuto is set when Request was chosen by asking the target
	// which request it answers (no request was given).
	RequestAuto bool `json:"request_auto,omitempty"`
	// SessionStore is the built-in server's session store ("tickets" or
	// "stateful"; "none" with resumption off), which sets what a
	// resumption costs the server; empty for an external target, whose
	// store tlsbench cannot see.
	SessionStore string `json:"session_store,omitempty"`
	// ClientIdentities is how many distinct client certificates the
	// connections rotated among (0 when not mutual).
	ClientIdentities int `json:"client_identities,omitempty"`
	// KeyCache is set when the case compares the server's key cache
	// setting (true: keys decrypted once; false: on every handshake).
	KeyCache *bool `json:"key_cache,omitempty"`
	// Params are the case's parameters, one per axis of the run's plan,
	// keyed by the record field each sets (tls_version, resume, mutual,
	// concurrency, key_type, key_cache, group, cipher, transport,
	// buffer_bytes, direction, ktls, source) and written as the flags
	// take them ("1.3", "on", "ecdsa-p256", "x25519", "default" for an
	// axis left to the TLS stack's defaults). They say what the case
	// asked for; the typed fields say what it got (the negotiated group
	// and cipher). report pairs full and resumed cases by all params but
	// resume; compare refuses to compare two cases whose params differ.
	// Absent in records written before params existed.
	Params map[string]string `json:"params,omitempty"`

	// Counts over the measured iterations (warm-up excluded): Handshakes
	// that succeeded, and connections that failed (Errors). Every figure
	// per handshake (client_cpu_us, server_cpu_us, alloc_bytes,
	// handshakes_per_sec, the samples) is per successful handshake.
	Handshakes int64 `json:"handshakes"`
	Errors     int64 `json:"errors"`
	// ErrorsByKind counts failed connections by kind: timeout, reset,
	// refused, eof, alert:<description>, other.
	ErrorsByKind map[string]int64 `json:"errors_by_kind,omitempty"`
	// Resumed counts handshakes the client saw resumed (DidResume).
	Resumed        int64   `json:"resumed"`
	ResumptionRate float64 `json:"resumption_rate"`
	// ServerResumed counts handshakes the server itself saw resumed; null
	// when the server cannot be asked (an external target).
	ServerResumed *int64 `json:"server_resumed" fold:"sum"`

	// Statistics of the per-iteration values (microseconds per handshake =
	// iteration wall time / handshakes in it).
	Iterations int     `json:"iterations"`
	MeanUS     float64 `json:"mean_us"`
	// ErrorUS is the half-width of the 99.9% confidence interval of the
	// mean (Student's t), as BenchmarkDotNet reports it; null with fewer
	// than two iterations.
	ErrorUS  *float64 `json:"error_us"`
	StddevUS float64  `json:"stddev_us"`
	MedianUS float64  `json:"median_us"`
	MinUS    float64  `json:"min_us"`
	MaxUS    float64  `json:"max_us"`

	// Percentiles of individual handshake latencies, from the HDR
	// histogram in Histogram: the client's handshake alone; through a
	// proxy, from the start of the dial to the end of the client's
	// handshake (the proxy answers the CONNECT only after its own
	// handshake with the server).
	P50US  float64 `json:"p50_us"`
	P90US  float64 `json:"p90_us"`
	P99US  float64 `json:"p99_us"`
	P999US float64 `json:"p999_us"`

	HandshakesPerSec float64 `json:"handshakes_per_sec"`
	// CPU microseconds per handshake, measured by the OS for each process.
	// Null when the process is not separable (in-memory transport) or not
	// observable (an external server without --server-pid).
	ClientCPUUS *float64 `json:"client_cpu_us" fold:"per-handshake"`
	ServerCPUUS *float64 `json:"server_cpu_us" fold:"per-handshake"`
	// ProcessCPUUS is the CPU per handshake of the single process that ran
	// both ends (in-memory transport only).
	ProcessCPUUS *float64 `json:"process_cpu_us,omitempty" fold:"per-handshake"`
	// AllocBytes is the client's heap allocation per handshake (Go runtime
	// metrics); ServerAllocBytes the server's own, when it reports it.
	AllocBytes       float64  `json:"alloc_bytes" fold:"per-handshake"`
	ServerAllocBytes *float64 `json:"server_alloc_bytes" fold:"per-handshake"`

	// SamplesUS are the raw per-iteration values, in order.
	SamplesUS []float64 `json:"samples_us"`
	// The costs per iteration, paired with SamplesUS by index (read at
	// the same iteration boundaries): the client's and the server's CPU
	// µs, the proxy's, and the client's heap bytes, each per successful
	// handshake of the iteration. Absent where the case's figure
	// (client_cpu_us, server_cpu_us, proxy_cpu_us) is, and when any kept
	// iteration's was unknown: never estimated.
	ClientCPUSamplesUS []float64 `json:"client_cpu_samples_us,omitempty" fold:"per-iteration"`
	ServerCPUSamplesUS []float64 `json:"server_cpu_samples_us,omitempty" fold:"per-iteration"`
	ProxyCPUSamplesUS  []float64 `json:"proxy_cpu_samples_us,omitempty" fold:"per-iteration"`
	AllocSamplesBytes  []float64 `json:"alloc_samples_bytes,omitempty" fold:"per-iteration"`
	// ServerCPUTickUS and ProxyCPUTickUS are the resolution of the
	// server's and the proxy's CPU readings, in µs, when it is coarse:
	// the operating system's clock tick (10 ms) for a process read from
	// /proc (--server-pid, --versus-pid, --proxy-pid). Absent for a
	// reading to the microsecond (the built-in server and proxy).
	ServerCPUTickUS *float64 `json:"server_cpu_tick_us,omitempty" fold:"max"`
	ProxyCPUTickUS  *float64 `json:"proxy_cpu_tick_us,omitempty" fold:"max"`
	// ServerInstructionsSamples are the built-in server's instructions
	// per successful handshake in each kept iteration, counted under
	// callgrind (--count instructions), paired with SamplesUS by index,
	// and ServerInstructionsPerHS the case's, over all of them. Absent
	// when the server was not counted, or any kept iteration's count is
	// unknown: never estimated.
	ServerInstructionsSamples []float64 `json:"server_instructions_samples,omitempty" fold:"per-iteration"`
	ServerInstructionsPerHS   *float64  `json:"server_instructions_per_hs,omitempty" fold:"per-handshake"`
	// ClientInstructionsSamples are the client's instructions per
	// successful handshake in each kept iteration, when the run counted
	// its own (tlsbench run --count instructions runs itself under
	// callgrind): paired with SamplesUS by index, read at the same
	// boundaries. ClientInstructionsPerHS is the case's, over all of
	// them. Absent when not counted or unknown in any kept iteration.
	ClientInstructionsSamples []float64 `json:"client_instructions_samples,omitempty" fold:"per-iteration"`
	ClientInstructionsPerHS   *float64  `json:"client_instructions_per_hs,omitempty" fold:"per-handshake"`
	// Histogram is the HDR histogram of handshake latencies in
	// microseconds, in the HdrHistogram V2 compressed encoding, base64.
	Histogram string `json:"histogram,omitempty"`

	// The handshake figure of a closed-loop handshake case: what the
	// connect and the TLS handshake took, without the exchange after
	// them (the request, the wait for its answer, the close), which the
	// per-iteration wall time in SamplesUS includes. For each iteration,
	// the sum over its waves of the time from the wave's start to the
	// end of its last successful handshake, divided by the iteration's
	// successful handshakes: what SamplesUS would be if connections did
	// nothing but connect and handshake (at concurrency 1, the mean
	// connect + handshake time). HandshakeSamplesUS holds it per
	// iteration, in the order of SamplesUS; the others are its
	// statistics, computed as MeanUS and the rest are from SamplesUS
	// (HandshakeErrorUS absent with fewer than two iterations). All
	// absent in open-loop and throughput cases, whose samples are what
	// they are, and in records written before they existed.
	HandshakeSamplesUS []float64 `json:"handshake_samples_us,omitempty"`
	HandshakeMeanUS    *float64  `json:"handshake_mean_us,omitempty"`
	HandshakeErrorUS   *float64  `json:"handshake_error_us,omitempty"`
	HandshakeStddevUS  *float64  `json:"handshake_stddev_us,omitempty"`
	HandshakeMedianUS  *float64  `json:"handshake_median_us,omitempty"`
	HandshakeMinUS     *float64  `json:"handshake_min_us,omitempty"`
	HandshakeMaxUS     *float64  `json:"handshake_max_us,omitempty"`

	// Throughput cases.
	BufferBytes  int      `json:"buffer_bytes,omitempty"`
	Cipher       string   `json:"cipher,omitempty"`
	Direction    string   `json:"direction,omitempty"`
	KTLSTX       *bool    `json:"ktls_tx,omitempty"`
	KTLSRX       *bool    `json:"ktls_rx,omitempty"`
	MBps         *float64 `json:"mbps,omitempty"`
	ClientCPUPct *float64 `json:"client_cpu_pct,omitempty"`
	ServerCPUPct *float64 `json:"server_cpu_pct,omitempty"`
	// The machine over the kept iterations, from /proc/stat (null when it
	// cannot be read, e.g. off Linux). CPUsAvailable is how many CPUs the
	// client and the server may run on together (their affinity masks);
	// MachineBusy the share (0..1) of those CPUs' time that was busy,
	// whoever ran; OtherCPUShare the share taken by anything but the
	// client and the server (other processes, steal time; with a server
	// whose CPU is not observed, the server too). A handshake case gets a
	// note when MachineBusy reaches 0.9 (saturated), any case when
	// OtherCPUShare reaches 0.1.
	CPUsAvailable int      `json:"cpus_available,omitempty"`
	MachineBusy   *float64 `json:"machine_busy,omitempty" fold:"max"`
	OtherCPUShare *float64 `json:"other_cpu_share,omitempty" fold:"max"`
	// ListenOverflows and ListenDrops are the machine's TCP listen-queue
	// counters (TcpExt ListenOverflows and ListenDrops, /proc/net/netstat)
	// over the measured iterations, the one a failure stopped included:
	// connections that found a listener's accept queue full, and every
	// connection a listener dropped (those included). A dropped SYN
	// waits for its retransmit (1 s, then 3 s). The counters are the
	// machine's, every process's listeners together; absent (null) when
	// not counted: a target that is not on this machine's loopback, QUIC
	// and in-memory transports, throughput cases, or not Linux. A count
	// above 0 gets a note.
	ListenOverflows *int64 `json:"listen_overflows,omitempty" fold:"max"`
	ListenDrops     *int64 `json:"listen_drops,omitempty" fold:"max"`
	// Extra holds case-specific measurements (for example kTLS counter
	// deltas) that have no field of their own. Throughput cases record
	// there what each end actually used: client_ktls_tx, client_ktls_rx,
	// server_ktls_tx and server_ktls_rx, the share of connections (0..1)
	// whose end had the kernel encrypt (tx) or decrypt (rx); compare
	// refuses to compare cases whose ends differ in them.
	Extra map[string]float64 `json:"extra,omitempty"`

	// Through a proxy (tlsbench run --proxy). Proxy is "builtin" (the
	// built-in proxy, started as a child process) or the proxy's URL; the
	// other proxy fields are absent without it. Figures cover the kept
	// iterations only. ProxyCPUUS is the proxy process's CPU (with its
	// child processes) in microseconds per megabyte moved (throughput) or
	// per handshake (handshake); absent when unknown (a URL proxy without
	// --proxy-pid). ProxyRelay says how the proxy relayed, per leg, as
	// it counted its connections (each once, when its relay starts: a
	// throughput case's connections, which open before its iterations): "client:splice,origin:splice" when
	// every connection's leg used one mode (user, ktls or splice), each
	// mode with its count ("client:ktls:3,client:user:1,...") when they
	// differed. ProxyMints and ProxyMintHits count the certificates the
	// proxy minted and those it found in its cache; ProxyResumed the
	// client-leg handshakes it resumed. ReadFill and MintCache are the
	// built-in proxy's settings when the run sets them.
	Proxy         string   `json:"proxy,omitempty"`
	ProxyCPUUS    *float64 `json:"proxy_cpu_us,omitempty" fold:"per-handshake"`
	ProxyRelay    string   `json:"proxy_relay,omitempty"`
	ProxyMints    *int64   `json:"proxy_mints,omitempty" fold:"sum"`
	ProxyMintHits *int64   `json:"proxy_mint_hits,omitempty" fold:"sum"`
	ProxyResumed  *int64   `json:"proxy_resumed,omitempty" fold:"sum"`
	ReadFill      *bool    `json:"read_fill,omitempty"`
	MintCache     *bool    `json:"mint_cache,omitempty"`

	// Interleaved A/B runs (tlsbench run --versus, --versus-server,
	// --versus-self) measure every case on two or three sides in one run.
	// Side is SideA (the run's own server or target), SideB (the other
	// side) or SideA2 (a second, identical instance of side a, measured
	// when --versus-self is given beside another side b: the noise floor
	// of the same run). A case's records have the same name and params on
	// every side, and their samples_us are paired by index: sample i of
	// each side was measured in round i, the sides' iterations
	// alternating in ABBA order (a b, b a, a b, ...), so that drift hits
	// them alike. Versus says what side b is, on every side's record.
	// Both are absent in other runs.
	Side   string `json:"side,omitempty"`
	Versus string `json:"versus,omitempty"`
	// TargetError is the precision the case measured towards (a
	// fraction: 0.02 is a 99.9% confidence interval whose half-width is
	// 2% of the mean; in an interleaved run, of the ratio of side b to
	// side a); absent without one. StoppedBy says what ended the case's
	// measured iterations: one of the Stopped* values.
	TargetError *float64 `json:"target_error,omitempty"`
	StoppedBy   string   `json:"stopped_by,omitempty"`

	// Open-loop handshake cases (tlsbench run --rate) start connections
	// on a schedule instead of in waves: Arrival is its shape (constant
	// or poisson), RateTarget the starts per second asked for and
	// RateAchieved those made over the kept windows. Latency (the
	// percentiles, Histogram, and the total phase) counts from each
	// connection's intended start, so that a server that falls behind
	// shows it (no coordinated omission); Service* are the same
	// percentiles from the connection's actual start. Late counts the
	// connections that started after their intended start because
	// MaxInflight connections were open; Dropped those that could not
	// start before their window ended. StartLateness* are the
	// generator's own accuracy: how late starts were against the
	// schedule, the starts counted Late left out (their wait is the
	// cap's). All absent in closed-loop cases.
	Arrival            string   `json:"arrival,omitempty"`
	RateTarget         *float64 `json:"rate_target,omitempty" fold:"sum"`
	RateAchieved       *float64 `json:"rate_achieved,omitempty" fold:"sum"`
	MaxInflight        int      `json:"max_inflight,omitempty"`
	Late               *int64   `json:"late,omitempty" fold:"sum"`
	Dropped            *int64   `json:"dropped,omitempty" fold:"sum"`
	StartLatenessP50US *float64 `json:"start_lateness_p50_us,omitempty"`
	StartLatenessP99US *float64 `json:"start_lateness_p99_us,omitempty"`
	ServiceP50US       *float64 `json:"service_p50_us,omitempty"`
	ServiceP90US       *float64 `json:"service_p90_us,omitempty"`
	ServiceP99US       *float64 `json:"service_p99_us,omitempty"`
	ServiceP999US      *float64 `json:"service_p999_us,omitempty"`
	// ServiceHistogram and StartLatenessHistogram are the HDR
	// histograms (microseconds, encoded as Histogram is) the Service*
	// and StartLateness* percentiles are drawn from, so that a merge
	// of shards recomputes them; absent where those are.
	ServiceHistogram       string `json:"service_histogram,omitempty"`
	StartLatenessHistogram string `json:"start_lateness_histogram,omitempty"`
	// DurationUS is the measured time of a case given --duration
	// (microseconds, the kept windows' length together; in closed loop
	// the kept iterations' wall time); absent otherwise.
	DurationUS *float64 `json:"duration_us,omitempty" fold:"max"`

	// A search for the highest rate that meets a latency goal (tlsbench
	// run --find-rate) writes one KindRateStep record per rate measured
	// and one KindRateSearch record with the answer. SLO is the goal, as
	// the command line takes it ("p99=20ms,error=0.1%"), on both; SLOMet
	// says whether a step met it. RateSustained is the highest rate that
	// met it (absent when none did) and RateFailed the lowest that did
	// not (absent when none failed): the answer lies between them.
	// SearchLimit says what ended the search before the bracket was
	// narrow (the generator's own limit, a bound), and Steps counts the
	// rates measured. A step's name is its search's followed by
	// /r<rate>: handshake/tls1.3/full/find-rate/r1600.
	SLO           string   `json:"slo,omitempty"`
	SLOMet        *bool    `json:"slo_met,omitempty"`
	RateSustained *float64 `json:"rate_sustained,omitempty"`
	RateFailed    *float64 `json:"rate_failed,omitempty"`
	SearchLimit   string   `json:"search_limit,omitempty"`
	Steps         int      `json:"steps,omitempty"`

	// Phases splits each handshake's time, by phase name (Phase*), each
	// from its own HDR histogram over the kept iterations; absent in
	// records written before phases existed, and a phase is absent when
	// it was not measured (the server's phases with an external target).
	Phases map[string]Phase `json:"phases,omitempty"`

	// ResumeRatio is the share of each iteration's (or window's)
	// connections that offered a session in a mix of full and resumed
	// handshakes (tlsbench run --resume-ratio): 0 all full, 1 all
	// resumed; absent when the case was not given one. Parts, in a mix
	// (a share strictly between 0 and 1), splits the handshakes and the
	// client's phases by kind, PartFull and PartResumed, by what each
	// handshake did (the gate holds that to what it offered), and the
	// CPU per handshake of each part (PartFigures).
	ResumeRatio *float64 `json:"resume_ratio,omitempty"`
	// Resumption is how the case's TLS 1.2 clients resume: "tickets" or
	// "session-id" (by the server's session cache, without a ticket
	// extension); absent unless the plan has the resumption axis.
	Resumption string                 `json:"resumption,omitempty"`
	Parts      map[string]PartFigures `json:"parts,omitempty"`

	// A sharded run (tlsbench run --shard I/N) is one run split over N
	// generator processes, usually on as many machines, each making its
	// share of the load against one external target; tlsbench merge
	// joins their records into records of the whole run.
	//
	// Shard is the index (from 0) of the shard that wrote the record;
	// absent outside sharded runs and in merged records. Shards is how
	// many shards the run was split into (in a merged record too).
	// RunPlan identifies the run's plan (a digest of everything that
	// decides what is measured: the matrix, the load, the target, the
	// common start), the same on every shard of one run, so that the
	// merge can refuse records of different runs.
	Shard   *int   `json:"shard,omitempty"`
	Shards  int    `json:"shards,omitempty"`
	RunPlan string `json:"run_plan,omitempty"`
	// StartAt is the run's common start (--start-at), RFC 3339 with
	// nanoseconds, UTC, in a sharded run: the merge names the start
	// times of shards given different ones.
	StartAt string `json:"start_at,omitempty"`
	// CaseStarted and CaseEnded are when the case's measured part (its
	// first kept iteration's start, its last one's end) began and ended
	// on this shard, RFC 3339 with nanoseconds, UTC; StartLateUS is how
	// long after the case's common start (the run's --start-at, then
	// boundaries computed from the plan) the shard began it. Set in
	// sharded runs; a shard over 100 ms late notes it. In a merged
	// record: the earliest start, the latest end, the latest shard's
	// lateness.
	CaseStarted string   `json:"case_started,omitempty"`
	CaseEnded   string   `json:"case_ended,omitempty"`
	StartLateUS *float64 `json:"start_late_us,omitempty"`
	// SampleHandshakes is, for each value of SamplesUS at the same
	// index, how many successful handshakes it was computed from, so
	// that samples of several shards can be combined per window:
	// weighted by them (open-loop windows: a mean latency), or as the
	// window's time over their sum (closed-loop iterations: wall time
	// per handshake). Handshake cases only; absent in records written
	// before it existed.
	SampleHandshakes []int64 `json:"sample_handshakes,omitempty"`
	// ShardRuns, in a merged record only, lists the shards merged into
	// it, by index; MissingShards the indices absent from the merge
	// (tlsbench merge --allow-missing), whose load the figures lack.
	ShardRuns     []ShardRun `json:"shard_runs,omitempty"`
	MissingShards []int      `json:"missing_shards,omitempty"`

	// QUIC and TLS 1.3 early data (--transport quic, --early-data).
	//
	// QUICVersion is the QUIC version the case's handshakes negotiated
	// ("v1", "v2"; each with its count of handshakes, sorted, when they
	// differed); absent outside QUIC cases. EarlyData says whether the
	// clients sent their request as early data (0-RTT) when resuming;
	// absent unless the plan has the early-data axis. EarlyDataPolicy is
	// the built-in server's policy for early data (accept, reject,
	// single-use); absent for an external target.
	QUICVersion     string `json:"quic_version,omitempty"`
	EarlyData       *bool  `json:"early_data,omitempty"`
	EarlyDataPolicy string `json:"early_data_policy,omitempty"`
	// EarlyDataOffered counts, over the kept iterations, the client's
	// connections that sent early data, and EarlyDataAccepted and
	// EarlyDataRejected how many of those the client found accepted
	// (the handshake completed as 0-RTT) or rejected (the request was
	// sent again after the handshake). ServerEarlyDataAccepted and
	// ServerEarlyDataRejected are the built-in server's own counts of
	// the same; a case fails when the client saw early data accepted
	// that the server did not count. Absent (null) when not measured:
	// outside early-data cases, and the server's with an external
	// target.
	EarlyDataOffered        *int64 `json:"early_data_offered,omitempty" fold:"sum"`
	EarlyDataAccepted       *int64 `json:"early_data_accepted,omitempty" fold:"sum"`
	EarlyDataRejected       *int64 `json:"early_data_rejected,omitempty" fold:"sum"`
	ServerEarlyDataAccepted *int64 `json:"server_early_data_accepted,omitempty" fold:"sum"`
	ServerEarlyDataRejected *int64 `json:"server_early_data_rejected,omitempty" fold:"sum"`
	// ServerQUICRetries counts, over the kept iterations, the QUIC
	// connections the built-in server asked to prove their address
	// first (a Retry: a round trip more in their handshake), and
	// ServerQUICRefused those it refused (failed on the client). Absent
	// (null) outside QUIC cases and with an external target.
	ServerQUICRetries *int64 `json:"server_quic_retries,omitempty" fold:"sum"`
	ServerQUICRefused *int64 `json:"server_quic_refused,omitempty" fold:"sum"`

	// Verdict is "failed" when the case was measured but failed a gate
	// (resumption below the minimum in a measured iteration, a mix that
	// missed its share of resumed handshakes in one, more failed
	// connections than the maximum error rate allows, client identities
	// crossed, or an iteration in which every connection failed after
	// others were kept); the reasons are in Notes. Empty otherwise: the
	// figures passed every gate.
	Verdict string `json:"verdict,omitempty"`

	// Notes are human-readable remarks on the case (a fallback taken, a
	// setting that limits how the figures may be read).
	Notes []string `json:"notes,omitempty"`

	Env Env `json:"env"`
}

// Phase names (Record.Phases).
const (
	// PhaseConnect: the TCP connect (or the in-memory equivalent), from
	// the connection's actual start.
	PhaseConnect = "connect"
	// PhaseHandshake: from the ClientHello's first byte written to the
	// end of the client's handshake.
	PhaseHandshake = "handshake"
	// PhaseFirstByte: from the end of the handshake to the first byte
	// read after it (application data, or a TLS 1.3 ticket).
	PhaseFirstByte = "first_byte"
	// PhaseExchange: from the end of the client's handshake to the end
	// of the exchange after it (the request written, its answer read):
	// what a connection spends after TLS, which the wall time per
	// connection includes and the handshake figure does not.
	PhaseExchange = "exchange"
	// PhaseFirstResponse: from the connection's actual start (the dial)
	// to the first byte of the answer to the request sent after (or, as
	// early data, during) the handshake: the time to the first response
	// byte, which 0-RTT exists to cut.
	PhaseFirstResponse = "first_response"
	// PhaseServerHandshake: the built-in server's own time from accept
	// to the end of its handshake; PhaseServerKey the time its key
	// manager took inside it (one value per handshake that asked it for
	// a certificate: none for TLS 1.3 resumptions), and
	// PhaseServerSessionStore the time of each of its session store's
	// operations (one value per ticket sealed or opened, or stateful
	// session stored or taken).
	PhaseServerHandshake    = "server_handshake"
	PhaseServerKey          = "server_key"
	PhaseServerSessionStore = "server_session_store"
	// PhaseTotal: the latency the record's percentiles (p50_us ...) are
	// drawn from: the client's handshake (from the dial through a proxy)
	// in closed-loop cases, from the intended start to the end of the
	// handshake in open-loop ones.
	PhaseTotal = "total"
)

// Phase is the distribution of one phase's durations over a case's
// kept iterations, in microseconds.
type Phase struct {
	Count  int64   `json:"count"`
	P50US  float64 `json:"p50_us"`
	P90US  float64 `json:"p90_us"`
	P99US  float64 `json:"p99_us"`
	P999US float64 `json:"p999_us"`
	MaxUS  float64 `json:"max_us"`
	// Histogram is the phase's HDR histogram (microseconds), encoded
	// as Record.Histogram is.
	Histogram string `json:"histogram,omitempty"`
}

// Parts of a mix (Record.Parts).
const (
	PartFull    = "full"
	PartResumed = "resumed"
)

// PartFigures are the figures of one part of a mix: its successful
// handshakes over the kept iterations and their client phases (the
// client's Phase* and PhaseTotal, by name).
//
// ClientCPUUS and ServerCPUUS are each process's CPU time per handshake
// of the part. The operating system counts a process's CPU, not a
// connection's: each connection's own work is measured on its thread
// (its handshake, with the waits for the peer left out), and the rest
// of the process's CPU time (dials, closes, the runtime) is shared
// equally per handshake, so that the parts add up to the whole's
// client_cpu_us and server_cpu_us: an estimate (see docs/results.md).
// Both ends measure the work in mix cases only, at a few system calls
// per read: a cost in the mix's figures, not in full or resume cases.
// Absent where the record has no such figure, or the work could not be
// measured (the server's: any server but the built-in one).
type PartFigures struct {
	Handshakes  int64            `json:"handshakes"`
	Phases      map[string]Phase `json:"phases,omitempty"`
	ClientCPUUS *float64         `json:"client_cpu_us,omitempty"`
	ServerCPUUS *float64         `json:"server_cpu_us,omitempty"`
}

// ShardRun is one shard of a merged record (Record.ShardRuns): its
// index, its share of the record's handshakes, when it ran the case and
// how late it began it, and its environment (Env.Host names its
// machine).
type ShardRun struct {
	Shard       int      `json:"shard"`
	Handshakes  int64    `json:"handshakes"`
	CaseStarted string   `json:"case_started,omitempty"`
	CaseEnded   string   `json:"case_ended,omitempty"`
	StartLateUS *float64 `json:"start_late_us,omitempty"`
	Env         Env      `json:"env"`
}

// Arrival shapes of open-loop cases (Record.Arrival).
const (
	ArrivalConstant = "constant"
	ArrivalPoisson  = "poisson"
)

// Env is the environment a record was measured in.
type Env struct {
	TLSBenchVersion string `json:"tlsbench_version"`
	GoVersion       string `json:"go_version"`
	GOOS            string `json:"goos"`
	GOARCH          string `json:"goarch"`
	GOMAXPROCS      int    `json:"gomaxprocs"`
	NumCPU          int    `json:"num_cpu"`
	CPUModel        string `json:"cpu_model"`
	Kernel          string `json:"kernel"`
	// GCMAESDriver is the kernel crypto driver for gcm(aes) with the
	// highest priority in /proc/crypto (e.g. generic-gcm-aesni): what
	// kernel TLS encrypts AES-GCM with, so what decides kTLS against Go's
	// own AES-GCM. Absent where it cannot be read or the kernel has not
	// instantiated gcm(aes).
	GCMAESDriver string `json:"gcm_aes_driver,omitempty"`
	// Peers names the versions of external peers used (openssl, nginx).
	Peers map[string]string `json:"peers,omitempty"`
	// Host is the name of the machine (or pod) the record was measured
	// on; set in sharded runs, where the machines differ.
	Host string `json:"host,omitempty"`
	// Insecure is true when certificate verification of the target was
	// switched off with --insecure.
	Insecure bool   `json:"insecure,omitempty"`
	Started  string `json:"started,omitempty"` // RFC 3339, UTC
}

// WithPeer is e naming peer name's version too, its Peers a copy: envs
// share their maps, and one side's peer must not appear in another's.
func (e Env) WithPeer(name, version string) Env {
	peers := make(map[string]string, len(e.Peers)+1)
	maps.Copy(peers, e.Peers)
	peers[name] = version
	e.Peers = peers
	return e
}

// Float returns a pointer to v, for the nullable fields.
func Float(v float64) *float64 { return &v }

// Int returns a pointer to v, for the nullable fields.
func Int(v int64) *int64 { return &v }

// Bool returns a pointer to v, for the nullable fields.
func Bool(v bool) *bool { return &v }

// TickUS is a coarse resolution in µs (server_cpu_tick_us), nil for a
// fine one (0).
func TickUS(d time.Duration) *float64 {
	if d <= 0 {
		return nil
	}
	return Float(float64(d.Nanoseconds()) / 1e3)
}
