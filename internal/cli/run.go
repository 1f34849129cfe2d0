package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/callgrind"
	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/internal/cli/reportcmd"
	"github.com/tlsbench/tlsbench/internal/cli/servecmd"
	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/hostname"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/profile"
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
  tlsbench run                                  # default matrix, under a minute
  tlsbench run --quick                          # same matrix, ~15 seconds
  tlsbench run --target host:443 --dry-run      # the cases and their planned time, nothing dialled
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
  tlsbench run --tls 1.3 --resume off,on --rate 250,500 --duration 20s --out open.jsonl
  tlsbench run --tls 1.3 --resume-ratio 0,0.8,1 --rate 500 --out mix.jsonl
  tlsbench run --rate 500 --arrival poisson --max-inflight 512 --target 127.0.0.1:8443 --ca ca.pem
  tlsbench run --shard 0/4 --start-at "$(date -u -d +2min +%Y-%m-%dT%H:%M:00Z)" --target 10.0.0.5:443 --ca ca.pem --concurrency 64 --duration 10s --out -
  tlsbench run --find-rate --slo p99=20ms --tls 1.2,1.3 --resume off,on --out rates.jsonl
  tlsbench run --quick --tls 1.3 --profile prof --profile-alloc   # go tool pprof prof/handshake_tls1.3_full_c8.server.pprof
  tlsbench run --mode throughput --proxy builtin --buffer 4k,16k,64k --read-fill off,on --ktls off,auto
  tlsbench run --mode throughput --proxy http://127.0.0.1:3128 --proxy-ca squid-ca.pem --proxy-pid 1234 \
      --identity pki/server-ecdsa-p256.pem,pki/server-ecdsa-p256-key.pem --cipher aes128gcm
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
	wide          bool
	quick         bool
	dryRun        bool
	baseline      string
	cmp           *reportcmd.CompareFlags

	server           *servecmd.ServerFlags
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
	profile          profile.Settings // --profile DIR, --profile-alloc
	count            string           // --count
	axes             plan.Values      // the settings table's axes (--early-data ...)
	earlyDataPolicy  string           // --early-data-policy
	pf               *planFileFlags   // --config, --print-config
}

func defineRunFlags(fs *command.FlagSet) *runFlags {
	f := &runFlags{
		versions:    []uint16{tls.VersionTLS12, tls.VersionTLS13},
		resume:      []bool{false, true},
		concurrency: []int{1, 8, 64, 128},
		keys:        []pki.KeyType{runner.DefaultKeyType},
		transports:  []string{runner.TransportTCP},
	}
	fs.Def("tls", command.List(&f.versions, tlsconf.ParseVersion, tlsconf.VersionName))
	fs.Def("resume", command.List(&f.resume, command.ParseOnOff, command.ShowOnOff))
	fs.Def("concurrency", command.List(&f.concurrency, command.ParsePositiveInt, nil))
	fs.Def("key", command.List(&f.keys, pki.ParseKeyType, nil))
	fs.Def("groups", command.List(&f.groups, tlsconf.ParseGroup, tlsconf.GroupName))
	fs.Def("transport", command.List(&f.transports, parseTransport, nil))
	fs.DefInt(&f.handshakes, "handshakes", 128)
	fs.DefInt(&f.iterations, "iterations", 20)
	fs.DefInt(&f.warmup, "warmup", 2)
	fs.DefDuration(&f.caseTime, "case-time", 3*time.Second)
	fs.DefFloat64(&f.minResumption, "min-resumption", measure.DefaultMinResumption)
	f.maxErrorRate = measure.DefaultMaxErrorRate
	fs.Def("max-error-rate", command.RateFlag{Share: &f.maxErrorRate})
	fs.DefDuration(&f.connTimeout, "conn-timeout", 10*time.Second)
	fs.DefString(&f.out, "out", "")
	fs.DefString(&f.format, "format", "table")
	fs.DefBool(&f.wide, "wide", false)
	fs.DefBool(&f.quick, "quick", false)
	fs.DefBool(&f.dryRun, "dry-run", false)
	fs.DefString(&f.baseline, "baseline", "")
	f.cmp = reportcmd.DefineCompareFlags(fs)

	f.server = servecmd.DefineServerFlags(fs, "127.0.0.1:0", false)
	f.keyCache = []bool{true}
	fs.Def("key-cache", command.List(&f.keyCache, command.ParseOnOff, command.ShowOnOff))
	fs.DefInt(&f.clientIdentities, "client-identities", 1)
	fs.DefInt(&f.sessionPool, "session-pool", 0)
	fs.DefString(&f.ticketReuse, "ticket-reuse", "multi")

	fs.DefString(&f.target.Addr, "target", "")
	fs.DefString(&f.target.ServerName, "sni", "")
	fs.DefString(&f.target.CAFile, "ca", "")
	fs.DefBool(&f.target.Insecure, "insecure", false)
	fs.DefString(&f.target.CertFile, "client-cert", "")
	fs.DefString(&f.target.KeyFile, "client-key", "")
	fs.DefInt(&f.target.ServerPID, "server-pid", 0)
	fs.DefString(&f.target.Command, "server-cmd", "")
	fs.Def("alpn", command.List(&f.target.ALPN, parseALPN, nil))
	f.tp = defineThroughputFlags(fs)
	fs.DefString(&f.request, "request", "")
	fs.DefString(&f.proxy.URL, "proxy", "")
	fs.DefString(&f.proxy.CAFile, "proxy-ca", "")
	fs.DefInt(&f.proxy.PID, "proxy-pid", 0)
	defineVersusFlags(fs, f)
	defineOpenLoopFlags(fs, f)
	defineMixFlags(fs, f)
	defineQUICFlags(fs, f)
	defineAxisFlags(fs, f)
	defineShardFlags(fs, f)
	fs.Def("mint-cache", command.List(&f.mintCache, command.ParseOnOff, command.ShowOnOff))
	fs.DefString(&f.profile.Dir, "profile", "")
	fs.DefBool(&f.profile.Alloc, "profile-alloc", false)
	fs.DefString(&f.count, "count", "")
	f.pf = definePlanFileFlags(fs)
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
	if f.pf.print {
		printPlanFile(stdout, fs)
		return nil
	}
	job, err := planRun(fs, f)
	if err != nil {
		return err
	}
	if f.count == plan.CountInstructions && !f.dryRun && !callgrind.InCountedRun() {
		// The client is counted too: the same run, again, under
		// callgrind, which this process waits for.
		return countedRun(args)
	}
	if err := checkStartAt(job, time.Now(), stderr); err != nil {
		return err
	}
	if f.dryRun {
		return job.dryRun(stdout)
	}
	return job.execute(ctx, stdout, stderr)
}

// parseRun parses run's flags and applies --quick.
func parseRun(args []string, stdout io.Writer) (*command.FlagSet, *runFlags, error) {
	fs := command.NewFlagSet("run", stdout, nil)
	f := defineRunFlags(fs)
	fs.Help = func(w io.Writer) { printRunHelp(w, fs) }
	if word, ok := helpGroupArg(args); ok {
		return nil, nil, runHelpGroup(stdout, fs, word)
	}
	if err := fs.Parse(args); err != nil {
		return nil, nil, err
	}
	if f.pf.config != "" {
		if err := applyPlanFile(fs, f.pf.config); err != nil {
			return nil, nil, err
		}
	}
	if f.quick {
		applyQuick(fs, f)
	}
	openLoopDefaults(fs, f)
	countDefaults(fs, f)
	boundTargetError(fs, f)
	return fs, f, nil
}

// applyQuick sets --quick's defaults: fewer iterations, not fewer cases,
// so --quick answers the same questions with wider error bars. Explicit
// flags still win.
func applyQuick(fs *command.FlagSet, f *runFlags) {
	if !fs.IsSet("iterations") {
		f.iterations = 5
	}
	if !fs.IsSet("warmup") {
		f.warmup = 1
	}
	if !fs.IsSet("case-time") {
		f.caseTime = 600 * time.Millisecond
	}
	if f.baseline != "" || f.interleaved() {
		// A comparison needs enough samples for its test (the U test
		// needs 4 a side at alpha 0.05, the paired test 6 pairs, more
		// at a smaller --alpha): no time cap, and two iterations more
		// than the test needs, so that a round lost to a failure does
		// not leave a case untested.
		if !fs.IsSet("iterations") {
			f.iterations = max(6, stats.MinSamples(f.cmp.Alpha)+2)
			if f.interleaved() {
				f.iterations = max(8, stats.PairedMinSamples(f.cmp.Alpha)+2)
			}
		}
		if !fs.IsSet("case-time") {
			f.caseTime = 0
		}
	}
}

// boundTargetError turns the default target error off when no time
// limit bounds a case (only a target given on purpose may then measure
// up to the iteration cap), and when --iterations says how many
// iterations to measure.
func boundTargetError(fs *command.FlagSet, f *runFlags) {
	// --quick's short case time could not reach it either.
	if !fs.IsSet("target-error") && (f.caseTime == 0 || fs.IsSet("iterations") || f.quick) {
		f.targetError = 0
	}
}

// validateRun checks the flags that need no plan: values, and which
// flags go together. The plan's own checks follow in planRun.
func validateRun(fs *command.FlagSet, f *runFlags) error {
	switch {
	case f.connTimeout <= 0:
		return command.Usagef("--conn-timeout %v: must be positive, e.g. 10s", f.connTimeout)
	case f.caseTime < 0:
		return command.Usagef("--case-time %v: must be 0 (no limit) or positive", f.caseTime)
	}
	if err := plan.CheckClientIdentities(f.clientIdentities, true); err != nil {
		return command.PlanUsage(err)
	}
	switch {
	case fs.IsSet("out") && f.out == "":
		return command.Usagef("--out: give the results file's name, e.g. --out results.jsonl")
	case fs.IsSet("proxy") && strings.TrimSpace(f.proxy.URL) == "":
		// An empty value would run without a proxy, as if the flag
		// were not there.
		return command.Usagef("--proxy: give builtin or http://HOST:PORT")
	}
	if f.out != "" && f.baseline != "" && command.SameFile(f.out, f.baseline) {
		return command.Usagef("--out %s would overwrite the --baseline file; write the new results elsewhere", f.out)
	}
	if _, err := report.ParseFormat(f.format); err != nil {
		return command.Usagef("--format: %v", err)
	}
	if err := f.cmp.Validate(); err != nil {
		return err
	}
	if f.baseline == "" && !f.interleaved() && (fs.IsSet("fail-on-regression") || fs.IsSet("alpha") || fs.IsSet("min-effect")) {
		return command.Usagef("--fail-on-regression, --alpha and --min-effect compare with a baseline: add --baseline FILE, or measure side b in the same run with --versus, --versus-server or --versus-self")
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
	if err := validateCount(f); err != nil {
		return err
	}
	if err := parseRequest(fs, f); err != nil {
		return err
	}
	if _, err := tlsconf.ParseTicketReuse(f.ticketReuse); err != nil {
		return command.Usagef("--ticket-reuse: %v", err)
	}
	if f.target.CertFile != "" && !f.server.Mutual {
		return command.Usagef("--client-cert presents a client certificate: add --mutual, so the cases are named and reported as mutual TLS")
	}
	if f.target.Addr == "" {
		if _, _, err := net.SplitHostPort(f.server.Listen); err != nil {
			return command.Usagef("--listen %s: %v (want host:port, e.g. 127.0.0.1:0)", hostname.Quote(f.server.Listen), hostname.Reason(err))
		}
	}
	if len(f.server.Identities) > 0 && fs.IsSet("key") {
		return command.Usagef("--key generates a server identity; with --identity the files decide")
	}
	return checkScope(fs, f)
}

// checkScope refuses flags of the built-in server with --target, and
// flags of an external server without it: the ends the settings table
// says they configure.
func checkScope(fs *command.FlagSet, f *runFlags) error {
	for _, s := range plan.For(plan.Run) {
		if s.OwnChecks || !fs.IsSet(s.Name) {
			continue
		}
		if err := scopeOf(s, f); err != nil {
			return err
		}
	}
	return nil
}

// scopeOf refuses a setting given where its end is not in the run, by
// the plan's rule.
func scopeOf(s *plan.Setting, f *runFlags) error {
	sc := plan.Scope{Target: f.target.Addr != "", Proxy: f.proxy.URL != "", Throughput: f.tp.mode != modeHandshake,
		Identity: len(f.server.Identities) > 0}
	if err := sc.Check(s); err != nil {
		return command.PlanUsage(err)
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
func planRun(fs *command.FlagSet, f *runFlags) (*runJob, error) {
	job := &runJob{f: f}
	job.format, _ = report.ParseFormat(f.format)
	var err error
	if f.baseline != "" {
		if job.baseline, err = reportcmd.LoadBaseline(f.baseline); err != nil {
			return nil, err
		}
	}
	if job.tplan, err = throughputPlan(fs, f); err != nil {
		return nil, err
	}
	reuse, _ := tlsconf.ParseTicketReuse(f.ticketReuse)
	job.plan = runner.Plan{
		Mutual: f.server.Mutual, ClientIdentities: f.clientIdentities, SessionPool: f.sessionPool, TicketReuse: reuse,
		Target: f.target, Versions: f.versions, Resume: f.resume, Concurrency: f.concurrency, KeyTypes: f.keys,
		Groups: f.groups, Ciphers: handshakeCiphers(fs, f), Transports: f.transports,
		Handshakes: f.handshakes, Iterations: f.iterations, Warmup: f.warmup, CaseTime: f.caseTime,
		IterationsGiven: fs.IsSet("iterations"), MinResumption: f.minResumption, MaxErrorRate: f.maxErrorRate, ConnTimeout: f.connTimeout,
		TargetError: f.targetError, Versus: f.versus, Profile: f.profile, Instructions: f.count == plan.CountInstructions,
	}
	rp := &job.plan
	applyOpenLoop(fs, f, rp)
	applyMix(fs, f, rp)
	applyQUIC(fs, f, rp)
	rp.Axes = f.axes
	applyShard(f, rp)
	if err := f.server.Apply(&rp.Server, fs.IsSet); err != nil {
		return nil, err
	}
	if fs.IsSet("key-cache") || len(f.server.Identities) > 0 {
		rp.KeyCache = f.keyCache
	}
	rp.Proxy = f.proxy
	if fs.IsSet("mint-cache") {
		rp.MintCache = f.mintCache
	}
	if len(f.server.Identities) > 0 {
		info, err := f.server.LoadIdentities(true)
		if err != nil {
			return nil, err
		}
		rp.KeyTypes = []pki.KeyType{pki.KeyType(info[0].KeyType)}
		rp.ServerCA = f.target.CAFile
		rp.Target.CAFile, rp.Target.ServerName = "", f.target.ServerName
	}
	if job.tplan == nil {
		if err := rp.Validate(); err != nil {
			return nil, command.PlanUsage(err)
		}
	}
	return job, nil
}

// execute runs the planned cases, streams each record to stdout and
// --out, and compares with the baseline at the end.
func (job *runJob) execute(ctx context.Context, stdout, stderr io.Writer) error {
	var out *command.OutFile
	if job.f.out == "-" {
		// The records alone on stdout (kubectl logs collects them);
		// the report goes where the progress does.
		out, stdout = command.StdoutFile(stdout), stderr
	} else if job.f.out != "" {
		var err error
		if out, err = command.CreateOutFile(job.f.out); err != nil {
			return command.Usagef("--out: %v", err)
		}
		defer out.Abandon() // on a return before the run ends
	}
	var prog *progress
	if job.tplan != nil {
		prog = newProgress(stderr, throughputBudgets(job.tplan))
	} else {
		prog = newProgress(stderr, handshakeBudgets(&job.plan))
		prog.eta.beginAt(job.plan.StartAt) // the first case waits for it
	}
	// json, csv and benchfmt go out case by case; a table once at the end.
	stream, err := reportcmd.NewStream(stdout, job.format, command.TableLayout(stdout, job.f.wide))
	if err != nil {
		return command.Usagef("--format: %v", err)
	}
	var recs []results.Record // kept for --baseline
	emit := func(rec *results.Record) error {
		prog.caseDone(rec)
		recs = append(recs, *rec)
		if out != nil {
			out.Write(rec) // a failed write is reported at the end
		}
		return stream.Add(rec)
	}
	var runErr error
	if job.tplan != nil {
		job.tplan.Progress, job.tplan.Notice, job.tplan.Words = prog.updateThroughput, prog.notice, command.RunWords
		runErr = job.tplan.Run(ctx, emit)
	} else {
		job.plan.Progress, job.plan.Notice, job.plan.Log, job.plan.Words = prog.update, prog.notice, prog.log, command.RunWords
		runErr = runner.Run(ctx, job.plan, emit)
	}
	prog.finish()
	return job.finish(ctx, stdout, stderr, stream, out, recs, runErr)
}

// finish closes the output of a run and says how it ended.
func (job *runJob) finish(ctx context.Context, stdout, stderr io.Writer, stream reportcmd.RecordStream, out *command.OutFile, recs []results.Record, runErr error) error {
	measured := command.CountCases(recs)
	var outErr error
	if out != nil {
		outErr = out.Finish(measured, runErr == nil)
	}
	if measured > 0 || runErr == nil {
		if err := stream.Close(); err != nil {
			return errors.Join(runErr, outErr, err)
		}
		if msg := stream.LeftOut(); msg != "" {
			fmt.Fprintln(stderr, "tlsbench: "+command.Printable(msg))
		}
	}
	if job.baseline != nil && measured > 0 && ctx.Err() == nil {
		if err := job.f.cmp.CompareAfterRun(stdout, stderr, job.format, job.f.baseline, job.baseline, recs); err != nil {
			printFailures(stderr, command.FlagErrors(runErr, command.ProxyWords(job.f.proxy.URL)))
			return errors.Join(runErr, outErr, err)
		}
	}
	if job.f.interleaved() && report.Interleaved(recs) && ctx.Err() == nil {
		if err := job.f.cmp.ComparePairedAfterRun(stdout, stderr, job.format, recs); err != nil {
			printFailures(stderr, command.FlagErrors(runErr, command.ProxyWords(job.f.proxy.URL)))
			return errors.Join(runErr, outErr, err)
		}
	}
	var startErr *runner.ServerStartError
	if errors.As(runErr, &startErr) {
		return &command.UsageError{Msg: command.UserText(runErr)}
	}
	var proxyErr *runner.ProxyStartError
	var fe *field.Error
	var pe *plan.Error
	if errors.As(runErr, &proxyErr) {
		// A file or pid given for the proxy is the user's to fix
		// (exit 2); a proxy that is not there fails the run (exit 1).
		if errors.As(runErr, &fe) || errors.As(runErr, &pe) {
			return &command.UsageError{Msg: command.UserText(runErr)}
		}
		return runOutcome(ctx, errors.New(command.UserText(runErr)), out, outErr)
	}
	runErr = command.FlagErrors(runErr, command.ProxyWords(job.f.proxy.URL))
	printFailures(stderr, runErr)
	return runOutcome(ctx, runErr, out, outErr)
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
		msg := command.Printable(e.Error())
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
func runOutcome(ctx context.Context, runErr error, out *command.OutFile, outErr error) error {
	if ctx.Err() != nil && out != nil {
		if outErr != nil {
			return &command.InterruptedError{Detail: outErr.Error()}
		}
		return &command.InterruptedError{Detail: out.Summary()}
	}
	switch {
	case outErr == nil:
		return runErr
	case runErr == nil:
		return outErr
	}
	return fmt.Errorf("%w; %v", runErr, outErr)
}

// handshakeCiphers are the ciphers of handshake cases: none (Go's
// defaults) unless --cipher is given.
func handshakeCiphers(fs *command.FlagSet, f *runFlags) []string {
	if fs.IsSet("cipher") {
		return f.tp.ciphers
	}
	return nil
}

// parseRequest reads --request in the run's mode: the exchange after each
// handshake, or the throughput wire.
func parseRequest(fs *command.FlagSet, f *runFlags) error {
	if !fs.IsSet("request") {
		return nil
	}
	if f.tp.mode == modeThroughput {
		switch f.request {
		case runner.RequestBulk, runner.RequestHTTP:
			return nil
		}
		return command.Usagef("--request %q: throughput cases move data over bulk or http", f.request)
	}
	r, err := client.ParseRequest(f.request)
	if err != nil {
		return command.Usagef("--request: %v", err)
	}
	f.target.Request = r
	return nil
}
