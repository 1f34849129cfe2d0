package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/hostname"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
	"github.com/tlsbench/tlsbench/stats"
	"github.com/tlsbench/tlsbench/tlsconf"
)

const runUsage = `Usage: tlsbench run [flags]

Runs a matrix of TLS handshake benchmark cases and prints a table. Without
--target, tlsbench starts its built-in server as a child process on a free
127.0.0.1 port, so that client and server CPU are measured separately.

Each case runs --iterations iterations of --handshakes handshakes started in
waves of --concurrency, after --warmup discarded iterations. Every handshake
is checked for resumption on the client and on the server. A resume case
whose warm-up or any measured iteration resumed less than --min-resumption,
or a case in which more connections failed than --max-error-rate allows,
fails (exit 1); what it measured is still written, marked "failed".

Examples:
  tlsbench run                                  # default matrix, ~1 minute
  tlsbench run --quick                          # same matrix, ~15 seconds
  tlsbench run --tls 1.3 --resume on --concurrency 128 --out r.jsonl
  tlsbench run --key rsa-2048,ecdsa-p256 --groups x25519,x25519mlkem768 --tls 1.3
  tlsbench run --transport tcp4,tcp6,memory --format markdown
  tlsbench run --transport tcp,quic --tls 1.3 --resume off,on
  tlsbench run --transport quic --tls 1.3 --resume on --early-data off,on --early-data-policy reject
  tlsbench run --target 127.0.0.1:4433 --transport quic --request http --ca ca.pem --tls 1.3 --resume on --early-data on
  tlsbench run --tls 1.2 --cipher aes128gcm,chacha20poly1305 --resume off,on
  tlsbench run --mutual --client-identities 16 --resume off,on
  tlsbench run --session-store stateful --ticket-reuse single --tls 1.3
  tlsbench run --target 127.0.0.1:4433 --ca ca.pem --mutual --client-cert c.pem --client-key c-key.pem
  tlsbench run --quick --out new.jsonl --baseline old.jsonl --fail-on-regression 5%
  tlsbench run --versus-self --quick                       # A/A: the noise of this machine
  tlsbench run --versus-server ./tlsbench-old --versus-self --fail-on-regression 5%
  tlsbench run --versus-self --versus-set key-cache=off --identity server.p12 --p12-password-file pw
  tlsbench run --target 127.0.0.1:8443 --versus 127.0.0.1:8444 --ca ca.pem --target-error 1%
  tlsbench run --identity pki/server-ecdsa-p256.p12 --p12-password-file pw --key-cache on,off
  tlsbench run --proxy builtin --tls 1.3 --resume off,on --mint-cache on,off
  tlsbench run --tls 1.3 --resume off,on --rate 500,2000 --duration 20s --out open.jsonl
  tlsbench run --tls 1.3 --resume-ratio 0,0.8,1 --rate 2000 --out mix.jsonl
  tlsbench run --rate 1000 --arrival poisson --max-inflight 512 --target 127.0.0.1:8443 --ca ca.pem
  tlsbench run --shard 0/4 --start-at 2026-12-01T06:00:00Z --target 10.0.0.5:443 --ca ca.pem --concurrency 64 --duration 10s --out -
  tlsbench run --find-rate --slo p99=20ms --tls 1.2,1.3 --resume off,on --out rates.jsonl
  tlsbench run --quick --tls 1.3 --profile prof --profile-alloc   # go tool pprof prof/handshake_tls1.3_full_c8.server.pprof
  tlsbench run --mode throughput --proxy builtin --buffer 4k,16k,64k --read-fill off,on --ktls off,auto
  tlsbench run --mode throughput --proxy http://127.0.0.1:3128 --proxy-ca squid-ca.pem --proxy-pid 1234 \
      --identity pki/server-ecdsa-p256.pem,pki/server-ecdsa-p256-key.pem --cipher aes128gcm

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
`

type runFlags struct {
	versions      []uint16
	resume        []bool
	concurrency   []int
	keys          []pki.KeyType
	groups        []tls.CurveID
	transports    []string
	handshakes    int
	iterations    int
	warmup        int
	caseTime      time.Duration
	minResumption float64
	maxErrorRate  float64
	connTimeout   time.Duration
	out           string
	format        string
	quick         bool
	baseline      string
	cmp           *compareFlags

	server           *serverFlags
	keyCache         []bool
	clientIdentities int
	sessionPool      int
	ticketReuse      string
	target           runner.Target
	request          string // --request as given: parsed per mode
	proxy            runner.Proxy
	mintCache        []bool
	tp               *throughputFlags // --mode and the throughput flags
	versus           runner.Versus
	targetError      float64
	rates            []float64 // --rate: open-loop cases
	findRate         bool      // --find-rate, with --slo and --max-rate
	slo              string
	parsedSLO        loadgen.SLO
	maxRate          float64
	resumeRatios     []float64 // --resume-ratio: shares of resumed connections
	arrival          string
	maxInflight      int
	shardText        string       // --shard I/N as given
	shards           int          // --shards N
	shard            runner.Shard // from either
	startAtText      string       // --start-at as given
	startAt          time.Time
	profile          runner.Profiles // --profile DIR, --profile-alloc
	earlyData        []bool          // --early-data
	earlyDataPolicy  string          // --early-data-policy
}

func defineRunFlags(fs *flagSet) *runFlags {
	f := &runFlags{
		versions:    []uint16{tls.VersionTLS12, tls.VersionTLS13},
		resume:      []bool{false, true},
		concurrency: []int{1, 8, 64, 128},
		keys:        []pki.KeyType{runner.DefaultKeyType},
		transports:  []string{runner.TransportTCP},
	}
	fs.Var(listFlag[uint16]{&f.versions, tlsconf.ParseVersion, tlsconf.VersionName}, "tls", "TLS versions, comma-separated: 1.2, 1.3")
	fs.Var(listFlag[bool]{&f.resume, parseOnOff, showOnOff}, "resume", "session resumption: off, on, or off,on for both")
	fs.Var(listFlag[int]{&f.concurrency, parsePositiveInt, nil}, "concurrency", "handshakes started at once (wave size), comma-separated")
	fs.Var(listFlag[pki.KeyType]{&f.keys, pki.ParseKeyType, nil}, "key", "server key types: ecdsa-p256, ecdsa-p384, rsa-2048, rsa-3072, ed25519")
	fs.Var(listFlag[tls.CurveID]{&f.groups, tlsconf.ParseGroup, tlsconf.GroupName}, "groups", "key-exchange groups, one case each (default: Go's defaults), e.g. x25519,x25519mlkem768,p256")
	fs.Var(listFlag[string]{&f.transports, parseTransport, nil}, "transport", "tcp4 (IPv4 loopback sockets; tcp is the same), tcp6 (IPv6, the built-in server on [::1]), memory (in-process pipes) or quic (QUIC over UDP, TLS 1.3 only), comma-separated")
	fs.IntVar(&f.handshakes, "handshakes", 128, "handshakes per iteration (with --rate: starts per window)")
	fs.IntVar(&f.iterations, "iterations", 20, "measured iterations per case, every one of them when given: --case-time then bounds only those past them, towards --target-error (with --rate: windows, 10 unless given)")
	fs.IntVar(&f.warmup, "warmup", 2, "discarded warm-up iterations per case")
	fs.DurationVar(&f.caseTime, "case-time", 3*time.Second, "stop measuring a case after this long (at least 2 iterations, and all of --iterations when given; throughput cases are cut at it whatever --iterations says); 0 for no limit")
	fs.Float64Var(&f.minResumption, "min-resumption", measure.DefaultMinResumption, "share of handshakes that must resume in a resume case, in the warm-up and in every measured iteration (0 disables the check)")
	f.maxErrorRate = measure.DefaultMaxErrorRate
	fs.Var(rateFlag{&f.maxErrorRate}, "max-error-rate", "largest `SHARE` of a case's connections that may fail, e.g. 0.1% or 0.001; 100% disables the check")
	fs.DurationVar(&f.connTimeout, "conn-timeout", 10*time.Second, "limit for one connection: connect, handshake, ping, close")
	fs.StringVar(&f.out, "out", "", "write results as JSON lines to `FILE`, each case as soon as it is measured; - writes them to stdout, and the table, progress and notes to stderr")
	fs.StringVar(&f.format, "format", "table", "output on stdout: table, markdown, json, csv, benchfmt, html")
	fs.BoolVar(&f.quick, "quick", false, "fewer iterations: the same matrix in about 15 seconds")
	fs.StringVar(&f.baseline, "baseline", "", "after the run, compare its results with the results `FILE` (as tlsbench compare does)")
	f.cmp = defineCompareFlags(fs)

	f.server = defineServerFlags(fs, "127.0.0.1:0", false)
	f.keyCache = []bool{true}
	fs.Var(listFlag[bool]{&f.keyCache, parseOnOff, showOnOff}, "key-cache", "server key cache: on (keys decrypted once), off (on every full handshake), or on,off to compare")
	fs.IntVar(&f.clientIdentities, "client-identities", 1, "with --mutual: distinct client certificates the connections rotate among")
	fs.IntVar(&f.sessionPool, "session-pool", 0, "sessions the client keeps per identity (default: the case's concurrency)")
	fs.StringVar(&f.ticketReuse, "ticket-reuse", "multi", "multi: offer a session again and again; single: use each ticket once (servers with single-use tickets)")

	fs.StringVar(&f.target.Addr, "target", "", "measure an external server at `host:port` instead of the built-in one")
	fs.StringVar(&f.target.ServerName, "sni", "", "with --target: server name sent and verified (default: the target's host)")
	fs.StringVar(&f.target.CAFile, "ca", "", "with --target: CA certificates `FILE` that verify the server (default: system roots)")
	fs.BoolVar(&f.target.Insecure, "insecure", false, "with --target: do not verify the server's certificate (recorded in the results)")
	fs.StringVar(&f.target.CertFile, "client-cert", "", "with --target: client certificate chain `FILE` (PEM) for mutual TLS")
	fs.StringVar(&f.target.KeyFile, "client-key", "", "with --target: client private key `FILE` (PEM)")
	fs.IntVar(&f.target.ServerPID, "server-pid", 0, "with --target: `PID` of a local server whose CPU (with its child processes, e.g. nginx workers) is sampled from /proc")
	fs.Var(listFlag[string]{&f.target.ALPN, parseALPN, nil}, "alpn", "with --target: ALPN protocols offered, e.g. http/1.1")
	f.tp = defineThroughputFlags(fs)
	fs.StringVar(&f.request, "request", "", "with --target or --proxy: what proves the connection and collects TLS 1.3 tickets: auto (with --target: the target is asked once which of the others it answers), http (HEAD /; the HTTP/2 preface when h2 is negotiated), http-get (GET /, e.g. openssl s_server -www), line (a line echoed, e.g. gnutls-serv --echo), ping (1-byte echo), wait (nothing sent; the TLS 1.3 tickets a server sends unasked are waited for, e.g. openssl s_server without -www), none (TLS 1.3 tickets are then never read) (default: http with a --proxy URL, else auto with --target, else ping); throughput: the wire, bulk or http (GET downloads, POST uploads; default http with a --proxy URL, else bulk)")
	fs.StringVar(&f.proxy.URL, "proxy", "", "connect through a TLS-intercepting proxy (HTTP CONNECT): builtin (tlsbench's own, started as a child process) or `URL` http://HOST:PORT (e.g. Squid with SSL bump)")
	fs.StringVar(&f.proxy.CAFile, "proxy-ca", "", "with --proxy URL: the CA certificates `FILE` of the proxy's minted certificates, which the client trusts (the built-in proxy's is trusted automatically); the proxy itself must verify the server (Squid: tls_outgoing_options cafile=)")
	fs.IntVar(&f.proxy.PID, "proxy-pid", 0, "with --proxy URL: `PID` of the local proxy whose CPU (with its child processes, e.g. Squid's helpers) is sampled from /proc")
	defineVersusFlags(fs, f)
	defineOpenLoopFlags(fs, f)
	defineMixFlags(fs, f)
	defineQUICFlags(fs, f)
	defineShardFlags(fs, f)
	fs.Var(listFlag[bool]{&f.mintCache, parseOnOff, showOnOff}, "mint-cache", "with --proxy builtin, handshake cases: the proxy's cache of minted certificates: on, off (one signature per connection), or on,off to compare")
	fs.StringVar(&f.profile.Dir, "profile", "", "write CPU profiles of each case's measured iterations to `DIR` (created if missing): CASE.client.pprof, and CASE.server.pprof and CASE.proxy.pprof for the built-in server and proxy; CASE is the case name with / as _")
	fs.BoolVar(&f.profile.Alloc, "profile-alloc", false, "with --profile: allocation profiles too, CASE.client.alloc.pprof ..., each with its start as CASE.client.alloc.base.pprof ... (go tool pprof -base)")
	return f
}

func parseALPN(s string) (string, error) {
	if len(s) > 255 {
		return "", fmt.Errorf("protocol name %q is longer than 255 bytes", s)
	}
	return s, nil
}

// parseTransport reads one --transport; tcp is written tcp4 (its alias),
// so that "tcp,tcp4" is the one value given twice.
func parseTransport(s string) (string, error) {
	switch s {
	case runner.TransportTCP, runner.TransportTCP4:
		return runner.TransportTCP4, nil
	case runner.TransportTCP6, runner.TransportMemory, runner.TransportQUIC:
		return s, nil
	}
	return "", fmt.Errorf("%q is not tcp4, tcp6, memory or quic", s)
}

// runCmd is tlsbench run: parse the flags, validate them, plan the run
// and execute it.
func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, f, err := parseRun(args, stdout)
	if err != nil {
		return err
	}
	if err := validateRun(fs, f); err != nil {
		return err
	}
	job, err := planRun(fs, f)
	if err != nil {
		return err
	}
	if err := checkStartAt(job, time.Now(), stderr); err != nil {
		return err
	}
	return job.execute(ctx, stdout, stderr)
}

// parseRun parses run's flags and applies --quick.
func parseRun(args []string, stdout io.Writer) (*flagSet, *runFlags, error) {
	fs := newFlagSet("run", stdout, nil)
	f := defineRunFlags(fs)
	fs.usage = func(w io.Writer) {
		io.WriteString(w, runUsage)
		io.WriteString(w, versusHelp)
		io.WriteString(w, openLoopHelp)
		io.WriteString(w, findRateHelp)
		io.WriteString(w, mixHelp)
		io.WriteString(w, shardHelp)
		io.WriteString(w, quicHelp)
		io.WriteString(w, "\nFlags:\n")
		fs.printFlags(w)
	}
	if err := fs.parse(args); err != nil {
		return nil, nil, err
	}
	if f.quick {
		applyQuick(fs, f)
	}
	openLoopDefaults(fs, f)
	boundTargetError(fs, f)
	return fs, f, nil
}

// applyQuick sets --quick's defaults: fewer iterations, not fewer cases,
// so --quick answers the same questions with wider error bars. Explicit
// flags still win.
func applyQuick(fs *flagSet, f *runFlags) {
	if !fs.isSet("iterations") {
		f.iterations = 5
	}
	if !fs.isSet("warmup") {
		f.warmup = 1
	}
	if !fs.isSet("case-time") {
		f.caseTime = 600 * time.Millisecond
	}
	if f.baseline != "" || f.interleaved() {
		// A comparison needs enough samples for its test (the U test
		// needs 4 a side at alpha 0.05, the paired test 6 pairs, more
		// at a smaller --alpha): no time cap, and two iterations more
		// than the test needs, so that a round lost to a failure does
		// not leave a case untested.
		if !fs.isSet("iterations") {
			f.iterations = max(6, stats.MinSamples(f.cmp.alpha)+2)
			if f.interleaved() {
				f.iterations = max(8, stats.PairedMinSamples(f.cmp.alpha)+2)
			}
		}
		if !fs.isSet("case-time") {
			f.caseTime = 0
		}
	}
}

// boundTargetError turns the default target error off when no time
// limit bounds a case (only a target given on purpose may then measure
// up to the iteration cap), and when --iterations says how many
// iterations to measure.
func boundTargetError(fs *flagSet, f *runFlags) {
	// --quick's short case time could not reach it either.
	if !fs.isSet("target-error") && (f.caseTime == 0 || fs.isSet("iterations") || f.quick) {
		f.targetError = 0
	}
}

// validateRun checks the flags that need no plan: values, and which
// flags go together. The plan's own checks follow in planRun.
func validateRun(fs *flagSet, f *runFlags) error {
	switch {
	case f.connTimeout <= 0:
		return usagef("--conn-timeout %v: must be positive, e.g. 10s", f.connTimeout)
	case f.caseTime < 0:
		return usagef("--case-time %v: must be 0 (no limit) or positive", f.caseTime)
	case f.clientIdentities < 1:
		return usagef("--client-identities %d: must be at least 1", f.clientIdentities)
	case fs.isSet("out") && f.out == "":
		return usagef("--out: give the results file's name, e.g. --out results.jsonl")
	case fs.isSet("proxy") && strings.TrimSpace(f.proxy.URL) == "":
		// An empty value would run without a proxy, as if the flag
		// were not there.
		return usagef("--proxy: give builtin or http://HOST:PORT")
	}
	if f.out != "" && f.baseline != "" && sameFile(f.out, f.baseline) {
		return usagef("--out %s would overwrite the --baseline file; write the new results elsewhere", f.out)
	}
	if _, err := report.ParseFormat(f.format); err != nil {
		return usagef("--format: %v", err)
	}
	if err := f.cmp.validate(); err != nil {
		return err
	}
	if f.baseline == "" && !f.interleaved() && (fs.isSet("fail-on-regression") || fs.isSet("alpha") || fs.isSet("min-effect")) {
		return usagef("--fail-on-regression, --alpha and --min-effect compare with a baseline: add --baseline FILE, or measure side b in the same run with --versus, --versus-server or --versus-self")
	}
	if err := validateShard(fs, f, time.Now(), osGetenv); err != nil {
		return err
	}
	if err := checkMode(fs, f); err != nil {
		return err
	}
	if err := validateOpenLoop(fs, f); err != nil {
		return err
	}
	if err := validateMix(fs); err != nil {
		return err
	}
	if err := validateQUIC(fs, f); err != nil {
		return err
	}
	if err := validateVersus(fs, f); err != nil {
		return err
	}
	if err := parseRequest(fs, f); err != nil {
		return err
	}
	if _, err := tlsconf.ParseTicketReuse(f.ticketReuse); err != nil {
		return usagef("--ticket-reuse: %v", err)
	}
	if f.target.CertFile != "" && !f.server.mutual {
		return usagef("--client-cert presents a client certificate: add --mutual, so the cases are named and reported as mutual TLS")
	}
	if f.target.Addr == "" {
		if _, _, err := net.SplitHostPort(f.server.listen); err != nil {
			return usagef("--listen %s: %v (want host:port, e.g. 127.0.0.1:0)", hostname.Quote(f.server.listen), hostname.Reason(err))
		}
	}
	if len(f.server.identities) > 0 && fs.isSet("key") {
		return usagef("--key generates a server identity; with --identity the files decide")
	}
	return checkScope(fs, f)
}

// checkScope refuses flags of the built-in server with --target, and
// flags of an external server without it.
func checkScope(fs *flagSet, f *runFlags) error {
	if f.target.Addr != "" {
		for _, name := range []string{"listen", "session-store", "session-capacity", "session-ttl", "ticket-keys",
			"handshake-timeout", "identity", "p12-password-file", "constraints", "key-cache", "key", "early-data-policy"} {
			if fs.isSet(name) {
				return usagef("--%s configures the built-in server; it does not apply with --target", name)
			}
		}
		return nil
	}
	targetOnly := []string{"insecure", "client-cert", "client-key", "alpn", "server-pid"}
	if f.proxy.URL == "" && f.tp.mode == modeHandshake {
		// Through a proxy, the exchange matters to the built-in
		// server too: a bumping HTTP proxy parses it.
		targetOnly = append(targetOnly, "request")
	}
	if len(f.server.identities) == 0 {
		// With --identity, --ca and --sni say how the clients verify
		// the given server identity.
		targetOnly = append(targetOnly, "ca", "sni")
	}
	for _, name := range targetOnly {
		if fs.isSet(name) && name == "request" {
			return usagef("--request applies to an external server or a proxy: add --target host:port or --proxy")
		}
		if fs.isSet(name) {
			return usagef("--%s applies to an external server: add --target host:port", name)
		}
	}
	return nil
}

// runJob is a planned run: the plan of its mode, and what to do with
// the records.
type runJob struct {
	f        *runFlags
	format   report.Format
	baseline []results.Record
	plan     runner.Plan
	tplan    *runner.ThroughputPlan // nil with --mode handshake
}

// planRun builds the run's plan from valid flags and validates it.
func planRun(fs *flagSet, f *runFlags) (*runJob, error) {
	job := &runJob{f: f}
	job.format, _ = report.ParseFormat(f.format)
	var err error
	if f.baseline != "" {
		if job.baseline, err = loadBaseline(f.baseline); err != nil {
			return nil, err
		}
	}
	if job.tplan, err = throughputPlan(fs, f); err != nil {
		return nil, err
	}
	reuse, _ := tlsconf.ParseTicketReuse(f.ticketReuse)
	job.plan = runner.Plan{
		Mutual: f.server.mutual, ClientIdentities: f.clientIdentities, SessionPool: f.sessionPool, TicketReuse: reuse,
		Target: f.target, Versions: f.versions, Resume: f.resume, Concurrency: f.concurrency, KeyTypes: f.keys,
		Groups: f.groups, Ciphers: handshakeCiphers(fs, f), Transports: f.transports,
		Handshakes: f.handshakes, Iterations: f.iterations, Warmup: f.warmup, CaseTime: f.caseTime,
		IterationsGiven: fs.isSet("iterations"), MinResumption: f.minResumption, MaxErrorRate: f.maxErrorRate, ConnTimeout: f.connTimeout,
		TargetError: f.targetError, Versus: f.versus, Profile: f.profile,
	}
	plan := &job.plan
	applyOpenLoop(fs, f, plan)
	applyMix(fs, f, plan)
	applyQUIC(fs, f, plan)
	applyShard(f, plan)
	if err := f.server.apply(&plan.Server, fs.isSet); err != nil {
		return nil, err
	}
	if fs.isSet("key-cache") || len(f.server.identities) > 0 {
		plan.KeyCache = f.keyCache
	}
	plan.Proxy = f.proxy
	if fs.isSet("mint-cache") {
		plan.MintCache = f.mintCache
	}
	if len(f.server.identities) > 0 {
		info, err := f.server.loadIdentities(true)
		if err != nil {
			return nil, err
		}
		plan.KeyTypes = []pki.KeyType{pki.KeyType(info[0].KeyType)}
		plan.ServerCA = f.target.CAFile
		plan.Target.CAFile, plan.Target.ServerName = "", f.target.ServerName
	}
	if job.tplan == nil {
		if err := plan.Validate(); err != nil {
			return nil, planUsage(err)
		}
	}
	return job, nil
}

// execute runs the planned cases, streams each record to stdout and
// --out, and compares with the baseline at the end.
func (job *runJob) execute(ctx context.Context, stdout, stderr io.Writer) error {
	var out *outFile
	if job.f.out == "-" {
		// The records alone on stdout (kubectl logs collects them);
		// the report goes where the progress does.
		out, stdout = stdoutFile(stdout), stderr
	} else if job.f.out != "" {
		var err error
		if out, err = createOutFile(job.f.out); err != nil {
			return usagef("--out: %v", err)
		}
		defer out.abandon() // on a return before the run ends
	}
	cases := len(job.plan.Cases())
	if job.tplan != nil {
		cases = len(job.tplan.Cases())
	}
	prog := newProgress(stderr, cases)
	// json, csv and benchfmt go out case by case; a table once at the end.
	stream, err := report.NewStream(stdout, job.format)
	if err != nil {
		return usagef("--format: %v", err)
	}
	var recs []results.Record // kept for --baseline
	emit := func(rec *results.Record) error {
		prog.caseDone(rec)
		recs = append(recs, *rec)
		if out != nil {
			out.write(rec) // a failed write is reported at the end
		}
		return stream.Add(rec)
	}
	var runErr error
	if job.tplan != nil {
		job.tplan.Progress, job.tplan.Notice, job.tplan.Words = prog.updateThroughput, prog.notice, runWords
		runErr = job.tplan.Run(ctx, emit)
	} else {
		job.plan.Progress, job.plan.Notice, job.plan.Log, job.plan.Words = prog.update, prog.notice, prog.log, runWords
		runErr = runner.Run(ctx, job.plan, emit)
	}
	prog.finish()
	return job.finish(ctx, stdout, stderr, stream, out, recs, runErr)
}

// finish closes the output of a run and says how it ended.
func (job *runJob) finish(ctx context.Context, stdout, stderr io.Writer, stream *report.Stream, out *outFile, recs []results.Record, runErr error) error {
	measured := countCases(recs)
	var outErr error
	if out != nil {
		outErr = out.finish(measured, runErr == nil)
	}
	if measured > 0 || runErr == nil {
		if err := stream.Close(); err != nil {
			return errors.Join(runErr, outErr, err)
		}
		if msg := stream.LeftOut(); msg != "" {
			fmt.Fprintln(stderr, "tlsbench: "+printable(msg))
		}
	}
	if job.baseline != nil && measured > 0 && ctx.Err() == nil {
		if err := job.f.cmp.compareAfterRun(stdout, stderr, job.format, job.f.baseline, job.baseline, recs); err != nil {
			printFailures(stderr, flagErrors(runErr, proxyWords(job.f.proxy.URL)))
			return errors.Join(runErr, outErr, err)
		}
	}
	if job.f.interleaved() && report.Interleaved(recs) && ctx.Err() == nil {
		if err := job.f.cmp.comparePairedAfterRun(stdout, stderr, job.format, recs); err != nil {
			printFailures(stderr, flagErrors(runErr, proxyWords(job.f.proxy.URL)))
			return errors.Join(runErr, outErr, err)
		}
	}
	var startErr *runner.ServerStartError
	if errors.As(runErr, &startErr) {
		return &UsageError{Msg: userText(runErr)}
	}
	var proxyErr *runner.ProxyStartError
	var fe *field.Error
	if errors.As(runErr, &proxyErr) {
		// A file or pid given for the proxy is the user's to fix
		// (exit 2); a proxy that is not there fails the run (exit 1).
		if errors.As(runErr, &fe) {
			return &UsageError{Msg: userText(runErr)}
		}
		return runOutcome(ctx, errors.New(userText(runErr)), out, outErr)
	}
	runErr = flagErrors(runErr, proxyWords(job.f.proxy.URL))
	printFailures(stderr, runErr)
	return runOutcome(ctx, runErr, out, outErr)
}

// printable is s on one line with its control characters (a hostile
// server's, in an alert or a certificate name) shown as escapes
// (results.Printable): newlines become spaces.
func printable(s string) string {
	return results.Printable(strings.ReplaceAll(s, "\n", " "))
}

// printFailures lists on stderr why each failed case failed and what to
// do about it, one line per way of failing, then the names of the other
// cases that failed the same way: the run's last line only counts them.
func printFailures(stderr io.Writer, err error) {
	fc, ok := err.(*runner.FailedCases)
	if !ok {
		return
	}
	var keys []string
	groups := map[string][]string{}
	for _, e := range fc.Errs {
		msg := printable(e.Error())
		_, reason, _ := strings.Cut(msg, ": ")
		k := digits.ReplaceAllString(reason, "#")
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], msg)
	}
	fmt.Fprintln(stderr, "failed cases:")
	for _, k := range keys {
		g := groups[k]
		fmt.Fprintln(stderr, "  "+g[0])
		if len(g) == 1 {
			continue
		}
		names := make([]string, len(g)-1)
		for i, msg := range g[1:] {
			names[i], _, _ = strings.Cut(msg, ": ")
		}
		fmt.Fprintf(stderr, "  %d more failed the same way: %s\n", len(names), strings.Join(names, ", "))
	}
}

// digits are the numbers in a failure's reason, which differ between
// cases that failed the same way (how many connections, which
// iteration).
var digits = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// runOutcome is run's final error: the run's own, with what became of
// --out. A failed write to --out fails the run (exit 1) even when every
// case passed; an interrupted run says where its results are.
func runOutcome(ctx context.Context, runErr error, out *outFile, outErr error) error {
	if ctx.Err() != nil && out != nil {
		if outErr != nil {
			return &interruptedError{detail: outErr.Error()}
		}
		return &interruptedError{detail: out.summary()}
	}
	switch {
	case outErr == nil:
		return runErr
	case runErr == nil:
		return outErr
	}
	return fmt.Errorf("%w; %v", runErr, outErr)
}

// rateFlag is a share written as a percentage (0.1%) or a fraction
// (0.001), between 0 and 1.
type rateFlag struct{ v *float64 }

func (r rateFlag) String() string {
	if r.v == nil {
		return ""
	}
	return strconv.FormatFloat(100**r.v, 'f', -1, 64) + "%"
}

func (r rateFlag) Set(s string) error {
	t := strings.TrimSpace(s)
	scale := 1.0
	if strings.HasSuffix(t, "%") {
		t, scale = strings.TrimSpace(strings.TrimSuffix(t, "%")), 0.01
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || v*scale < 0 || v*scale > 1 {
		return fmt.Errorf("%q is not a share between 0%% and 100%% (e.g. 0.1%% or 0.001)", s)
	}
	*r.v = v * scale
	return nil
}

// sameFile reports whether two paths name one file (an existing one).
func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// handshakeCiphers are the ciphers of handshake cases: none (Go's
// defaults) unless --cipher is given.
func handshakeCiphers(fs *flagSet, f *runFlags) []string {
	if fs.isSet("cipher") {
		return f.tp.ciphers
	}
	return nil
}

// parseRequest reads --request in the run's mode: the exchange after each
// handshake, or the throughput wire.
func parseRequest(fs *flagSet, f *runFlags) error {
	if !fs.isSet("request") {
		return nil
	}
	if f.tp.mode == modeThroughput {
		switch f.request {
		case runner.RequestBulk, runner.RequestHTTP:
			return nil
		}
		return usagef("--request %q: throughput cases move data over bulk or http", f.request)
	}
	r, err := client.ParseRequest(f.request)
	if err != nil {
		return usagef("--request: %v", err)
	}
	f.target.Request = r
	return nil
}
