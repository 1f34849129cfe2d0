package cli

import (
	"fmt"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/runner"
)

// Modes of tlsbench run.
const (
	modeHandshake  = plan.ModeHandshake
	modeThroughput = plan.ModeThroughput
)

// throughputFlags are the flags of tlsbench run --mode throughput.
type throughputFlags struct {
	mode       string
	buffers    []int
	ciphers    []string
	ktls       []ktls.Mode
	directions []string
	bytes      string
	duration   time.Duration
	source     string
	readFill   []bool
}

func defineThroughputFlags(fs *command.FlagSet) *throughputFlags {
	t := &throughputFlags{
		buffers:    []int{4 << 10, 16 << 10, 64 << 10},
		ciphers:    []string{ktls.CipherAES128GCM, ktls.CipherAES256GCM, ktls.CipherChaCha20Poly1305},
		ktls:       []ktls.Mode{ktls.ModeAuto},
		directions: []string{loadgen.DirectionDownload},
	}
	fs.DefString(&t.mode, "mode", modeHandshake)
	fs.Def("buffer", command.List(&t.buffers, plan.ParseBuffer, runner.SizeName))
	fs.Def("cipher", command.List(&t.ciphers, plan.ParseCipher, nil))
	fs.Def("ktls", command.List(&t.ktls, parseKTLSMode, ktls.Mode.String))
	fs.Def("read-fill", command.List(&t.readFill, command.ParseOnOff, command.ShowOnOff))
	fs.Def("direction", command.List(&t.directions, plan.ParseDirection, nil))
	fs.DefString(&t.bytes, "bytes", "64MiB")
	fs.DefDuration(&t.duration, "duration", 0)
	fs.DefString(&t.source, "source", "")
	return t
}

// checkMode checks --mode and refuses the flags of the other mode: those
// the settings table says apply to one mode only (their own checks aside).
func checkMode(fs *command.FlagSet, f *runFlags) error {
	var mode plan.Mode
	switch f.tp.mode {
	case modeHandshake:
		mode = plan.Handshake
	case modeThroughput:
		mode = plan.Throughput
	default:
		return command.Usagef("--mode %q: want handshake or throughput", f.tp.mode)
	}
	for _, s := range plan.For(plan.Run) {
		if s.Modes&mode != 0 || s.OwnChecks || !fs.IsSet(s.Name) {
			continue
		}
		if mode == plan.Handshake {
			return command.Usagef("--%s applies to --mode throughput", s.Name)
		}
		return command.Usagef("--%s applies to handshake cases: drop it with --mode throughput", s.Name)
	}
	return nil
}

// throughputPlan builds and validates the plan of --mode throughput; it
// returns nil for --mode handshake. Errors are usage errors (exit 2),
// --ktls on on a kernel without kTLS included.
func throughputPlan(fs *command.FlagSet, f *runFlags) (*runner.ThroughputPlan, error) {
	t := f.tp
	if t.mode != modeThroughput {
		return nil, nil
	}
	p := &runner.ThroughputPlan{
		Versions:    f.versions,
		Ciphers:     t.ciphers,
		Buffers:     t.buffers,
		KTLS:        t.ktls,
		Directions:  t.directions,
		Concurrency: f.concurrency,
		Duration:    t.duration,
		Iterations:  f.iterations,
		Warmup:      f.warmup,
		CaseTime:    f.caseTime,
		ConnTimeout: f.connTimeout,
		Profile:     f.profile,
	}
	if !fs.IsSet("concurrency") {
		p.Concurrency = []int{1} // parallel connections, not a wave of handshakes
	}
	if len(f.keys) != 1 {
		return nil, command.Usagef("--key: --mode throughput uses one server key type, not %d", len(f.keys))
	}
	p.KeyType = f.keys[0]
	if err := plan.CheckAmount(fs.IsSet("bytes"), 0, t.duration); err != nil {
		return nil, command.PlanUsage(err)
	}
	if t.duration == 0 {
		n, err := plan.ParseSize(t.bytes)
		if err != nil {
			return nil, command.Usagef("--bytes: %v", err)
		}
		p.Bytes = n
	}
	if t.source != "" {
		path, err := plan.ParseSource(t.source)
		if err != nil {
			return nil, command.Usagef("--source %v", err)
		}
		p.Source = path
	}
	if err := f.server.Apply(&p.Server, fs.IsSet); err != nil {
		return nil, err
	}
	p.Proxy = f.proxy
	if fs.IsSet("read-fill") {
		p.ReadFill = t.readFill
	}
	if fs.IsSet("request") {
		p.Request = f.request
	}
	if f.proxy.URL != "" && f.proxy.URL != runner.ProxyBuiltin && !fs.IsSet("ktls") {
		// A proxy given by URL keeps its own kTLS configuration.
		p.KTLS = []ktls.Mode{ktls.ModeOff}
	}
	if err := p.Validate(); err != nil {
		return nil, command.PlanUsage(err)
	}
	return p, nil
}

// updateThroughput is update for throughput cases: MB/s instead of
// handshakes per second.
func (p *progress) updateThroughput(tp runner.TransferProgress) {
	p.status(tp.Index, tp.Total, tp.Case, tp.Warmup, tp.Iteration, tp.Of, fmt.Sprintf("%.0f MB/s", tp.MBps))
}

// parseKTLSMode parses one --ktls value; the error is worded for the flag
// (the package's own names its package).
func parseKTLSMode(s string) (ktls.Mode, error) {
	m, err := ktls.ParseMode(s)
	if err != nil {
		return m, fmt.Errorf("unknown mode %q (want off, auto or on)", s)
	}
	return m, nil
}
