package measure

import (
	"cmp"
	"crypto/tls"
	"fmt"
	"math"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/callgrind"
	"github.com/tlsbench/tlsbench/internal/counts"
	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// HandshakeCase is one handshake benchmark case.
type HandshakeCase struct {
	// Name is the case name in results, e.g. handshake/tls1.3/resume/c64.
	Name string
	// Version is the TLS version the clients are pinned to.
	Version uint16
	// Resume says the clients offer cached sessions; every client config
	// must then have a ClientSessionCache, and none otherwise.
	Resume bool
	// ResumeRatio, when set, makes the case a mix: that share (0 to 1)
	// of each iteration's (or window's) connections offers a session,
	// spread evenly, and the rest make full handshakes (Resume must be
	// set). Each iteration's resumed share, as the client and the server
	// count it, must match it to one connection, or the case fails
	// (MixError); MinResumption does not apply. Nil: not a mix.
	ResumeRatio *float64
	Mutual      bool
	// Concurrency is the size of a wave of simultaneous handshakes.
	Concurrency int
	// Handshakes per iteration (default 128); in open loop, the
	// connections a window schedules when Duration is not set.
	Handshakes int
	// Rate, when above 0, makes the case open-loop: connections start
	// on a schedule at Rate starts per second, each iteration a window
	// of equal length (see window), and Concurrency is not used.
	Rate float64
	// Arrival is the schedule's shape: results.ArrivalConstant (the
	// default) or results.ArrivalPoisson, whose random arrivals are
	// seeded from the case name so that a case repeats its schedule.
	Arrival string
	// MaxInflight bounds the connections an open-loop case has open at
	// once (default DefaultMaxInflight).
	MaxInflight int
	// Duration, when set, is the measured time of the case: each of the
	// Iterations is a window of Duration/Iterations. In open loop a
	// window then schedules Rate × its length connections; in closed
	// loop waves run until the window ends.
	Duration time.Duration
	// Iterations measured and Warmup iterations discarded before them
	// (past the first, within a quarter of MaxDuration).
	Iterations int
	Warmup     int
	// MaxDuration stops measuring early (after at least two iterations)
	// once the measured iterations have taken about this long: the one
	// that ends nearest to it is the last; 0 means no limit.
	MaxDuration time.Duration
	// IterationsGiven says Iterations were asked for: all of them are
	// measured, and MaxDuration bounds only the iterations past them
	// (towards TargetError).
	IterationsGiven bool
	// TargetError, when above 0, keeps measuring past Iterations (then
	// the minimum) until the half-width of the 99.9% confidence interval
	// of the mean is at most TargetError of the mean (0.02: 2%), up to
	// MaxDuration, or results.MaxIterations without one. The record says
	// what ended the case (StoppedBy) and notes a target not reached.
	TargetError float64
	// MinResumption, when set, is the share of handshakes that must
	// resume in a resume case, in the warm-up and in every measured
	// iteration (DefaultMinResumption is tlsbench run's); nil, like 0,
	// requires nothing.
	MinResumption *float64
	// MaxErrorRate is the share of connections that may fail, 0..1
	// (DefaultMaxErrorRate is tlsbench run's), in the warm-up and in the
	// measured iterations: the zero value allows none, 1 any. A phase
	// stops as soon as its failures exceed the share of all the
	// connections it is to make.
	MaxErrorRate float64
	// TrackTicketUse counts, per iteration, the sessions offered for the
	// first time and those offered again, so that a resumption failure can
	// tell single-use tickets (first uses resume, reuses do not) from a
	// server that declines at random. For servers that cannot say what
	// they declined (external targets).
	TrackTicketUse bool
	// Clients are the client configurations; connection i uses
	// Clients[i % len(Clients)], so several client identities rotate.
	Clients []*tls.Config
	// ClientIdentities, when set, names the certificate each of Clients
	// presents, in the form the server counts (server.Counters.Identities:
	// the first 8 bytes of the SHA-256 thumbprint, hex). The server's count
	// per identity must then match the client's: a session resumed under
	// another identity than the one presented fails the case.
	ClientIdentities []string
	// SessionIDs, when set, makes the case's TLS 1.2 connections resume
	// by session ID instead of by ticket (client.IDSessions.Handshake):
	// no ticket extension is sent, the full handshakes keep their
	// sessions in SessionIDs by client, and those that offer one resume
	// it. A resumption the server declines costs its connection a full
	// handshake on a new connection, counted as not resumed. The clients'
	// session caches are not used.
	SessionIDs *client.IDSessions
	Dialer     client.Dialer
	// QUIC, when set, runs every connection over QUIC to its address
	// instead of through Dialer (which may then be nil), with its own
	// exchange: see QUICDialer. The case must be TLS 1.3.
	QUIC *client.QUICDialer
	// Exchange runs after each handshake (default PingPong).
	Exchange client.Exchange
	// LatencyFromDial starts each connection's latency when its dial
	// starts instead of when the client's handshake does: through a
	// proxy, the CONNECT is answered only after the proxy's own
	// handshake with the origin, which the case's handshake includes.
	LatencyFromDial bool
	// ConnTimeout bounds each connection from dial to close (default 10 s).
	ConnTimeout time.Duration
	// ListenQueue, when set, counts the machine's TCP listen-queue
	// overflows and drops over the case's iterations (see
	// listenqueue.go) and names, in its notes and errors, whose queue
	// they stand for: "the server's". Set it only when every listener the
	// connections reach is on this machine (the counters are the
	// machine's) and they are TCP.
	ListenQueue string
	// Server, when set, is asked for the server's own counts before and
	// after the measured iterations.
	Server ServerObserver
	// Proxy, when set, is the proxy the Dialer connects through, read
	// at the same boundaries as Server (see proxyFigures). The server's
	// counts then describe the proxy–origin leg: they are recorded, but
	// the gates judge the client's leg.
	Proxy ProxyObserver
	// Record holds the descriptive fields to copy into the result (key
	// type, transport, identities, env...); measurement fields are
	// overwritten.
	Record results.Record
	// Progress, when set, is called after every iteration.
	Progress func(Progress)
	// Measuring, when set, is called with true just before the first
	// measured iteration (after priming and the warm-up) and with false
	// just after the last: what a profile of the measured iterations
	// alone starts and stops on. In an interleaved case every side's is
	// called, in the sides' order, before the first round and after the
	// last.
	Measuring func(begin bool)
	// Words names the settings and gives the advice in the case's
	// errors and notes.
	Words client.Words

	// Shard and Shards, when Shards is over 1, make the case one shard
	// of a load split over Shards generators (see shard.go): in open
	// loop, Rate is this shard's share of the whole rate and its
	// schedule the whole schedule's connections k ≡ Shard (mod Shards);
	// with Arrival poisson, its own random arrivals (seeded from the
	// name and the shard), which together make a Poisson process of the
	// whole rate. Shards 1 is a shard of a run of one: its record
	// carries the times, as every shard's does.
	Shard, Shards int
	// StartAt, when set, is when the warm-up begins: once its sessions
	// are primed, the case waits until then, or, past it, begins at once
	// and records how late (Record.StartLateUS, in a sharded case).
	StartAt time.Time

	Hooks *TestHooks // nil outside tests
	// WholeWindow is, in an open-loop shard, the connections a window of
	// the whole schedule (every shard's) holds.
	WholeWindow int
}

// Progress reports a finished iteration.
type Progress struct {
	Case      string
	Warmup    bool
	Iteration int // 1-based within its phase
	// Of is the phase's planned iterations: measuring towards a target
	// error (HandshakeCase.TargetError), Iteration may go past it.
	Of int
	// HandshakesPerSec of this iteration.
	HandshakesPerSec float64
}

// ServerObserver reports what the server itself counted.
type ServerObserver interface {
	Snapshot() (ServerSnapshot, error)
}

// ServerSnapshot is the server's view at one moment. Fields the server
// cannot report are marked absent by their Has flags.
type ServerSnapshot struct {
	HasCounts  bool
	Handshakes int64
	Resumed    int64
	Failures   map[string]int64
	// Identities counts handshakes by client identity (see
	// HandshakeCase.ClientIdentities).
	Identities map[string]int64
	// KeyDecryptions counts the server's private key decryptions (its
	// key manager's PKCS#12 decodes).
	KeyDecryptions int64
	// Declined counts sessions the server refused to resume, by reason.
	Declined map[string]int64
	// Phases are the server's own phase histograms since it started, by
	// phase name (results.PhaseServer*); nil when it does not time them.
	// A snapshot's phases are cumulative: the differences between the
	// snapshots of an iteration's boundaries are the iteration's.
	Phases map[string]*stats.Latency
	// phasesLost marks a difference whose phases went backwards (see
	// serverDelta).
	phasesLost bool
	// HandshakeCPU is the CPU time the server measured its handshakes
	// took, in nanoseconds by kind (results.PartFull, PartResumed), and
	// HandshakeCPULost the handshakes it could not measure whole; nil
	// and 0 when it does not measure them (a mix's parts get no server
	// CPU then).
	HandshakeCPU     map[string]int64
	HandshakeCPULost int64
	// EarlyDataAccepted and EarlyDataRejected are the server's counts
	// of early data it accepted and refused, when HasEarlyData.
	HasEarlyData                         bool
	EarlyDataAccepted, EarlyDataRejected int64
	HasCPU                               bool
	CPU                                  time.Duration
	// CPUTick is the resolution of CPU when it is coarse (a reading
	// from /proc); 0 for one to the microsecond.
	CPUTick      time.Duration
	HasAlloc     bool
	AllocBytes   uint64
	Instructions *int64 // the server process's count under callgrind; nil: not counted

	// QUICRetries and QUICRefused are the server's counts of QUIC
	// connection attempts asked to prove their address first (a Retry)
	// and refused, which a QUIC case records.
	QUICRetries, QUICRefused int64
}

func (hc *HandshakeCase) SetDefaults() error {
	if hc.Handshakes <= 0 {
		hc.Handshakes = 128
	}
	if hc.Rate > 0 {
		hc.Arrival = cmp.Or(hc.Arrival, results.ArrivalConstant)
		if hc.MaxInflight == 0 {
			hc.MaxInflight = DefaultMaxInflight
		}
	}
	if err := hc.validate(); err != nil {
		return fmt.Errorf("%s: %w", hc.Name, err)
	}
	hc.OpenDefaults()
	if hc.Exchange == nil {
		hc.Exchange = client.PingPong
	}
	if hc.ConnTimeout <= 0 {
		hc.ConnTimeout = 10 * time.Second
	}
	hc.quicDefaults()
	if hc.TrackTicketUse && hc.Resume && hc.SessionIDs == nil {
		hc.Clients = client.TrackTicketUse(hc.Clients)
	}
	return nil
}

// validate checks the settings a case cannot run without; the errors
// name the field (*field.Error).
func (hc *HandshakeCase) validate() error {
	if err := hc.ValidateOpen(); err != nil {
		return err
	}
	if err := hc.ValidateShard(); err != nil {
		return err
	}
	if err := hc.validateMix(); err != nil {
		return err
	}
	switch {
	case hc.Concurrency <= 0 && hc.Rate == 0:
		return field.Errorf("Concurrency", hc.Concurrency, "must be at least 1")
	case hc.Iterations <= 0:
		return field.Errorf("Iterations", hc.Iterations, "must be at least 1")
	case len(hc.Clients) == 0:
		return field.Errorf("Clients", nil, "no client configuration")
	case hc.Dialer == nil && hc.QUIC == nil:
		return field.Errorf("Dialer", nil, "no dialer")
	case len(hc.ClientIdentities) > 0 && len(hc.ClientIdentities) != len(hc.Clients):
		return field.Errorf("ClientIdentities", len(hc.ClientIdentities), "one per client: there are %d clients", len(hc.Clients))
	case hc.MinResumption != nil && (*hc.MinResumption < 0 || *hc.MinResumption > 1):
		return field.Errorf("MinResumption", *hc.MinResumption, "must be between 0 and 1")
	case hc.MaxErrorRate < 0 || hc.MaxErrorRate > 1:
		return field.Errorf("MaxErrorRate", hc.MaxErrorRate, "must be between 0 and 1")
	case !(hc.TargetError >= 0) || math.IsInf(hc.TargetError, 1):
		return field.Errorf("TargetError", hc.TargetError, "must be a finite share of the mean, 0 for none")
	case hc.SessionIDs != nil && (hc.Version != tls.VersionTLS12 || hc.QUIC != nil):
		return field.Errorf("SessionIDs", nil, "session IDs resume TLS 1.2 over TCP only")
	}
	for _, c := range hc.Clients {
		if (c.ClientSessionCache != nil) != hc.Resume {
			return field.Errorf("Clients", nil, "a client session cache must be set exactly when Resume is")
		}
	}
	return hc.validateQUIC()
}

func (s ServerSnapshot) sub(earlier ServerSnapshot) ServerSnapshot {
	d := s
	d.Handshakes -= earlier.Handshakes
	d.Resumed -= earlier.Resumed
	d.CPU -= earlier.CPU
	d.AllocBytes -= earlier.AllocBytes
	d.KeyDecryptions -= earlier.KeyDecryptions
	d.Failures = counts.Sub(s.Failures, earlier.Failures)
	d.Identities = counts.Sub(s.Identities, earlier.Identities)
	d.Declined = counts.Sub(s.Declined, earlier.Declined)
	d.Phases, d.phasesLost = subPhases(s.Phases, earlier.Phases)
	d.HandshakeCPU = counts.Sub(s.HandshakeCPU, earlier.HandshakeCPU)
	d.HandshakeCPULost -= earlier.HandshakeCPULost
	d.EarlyDataAccepted -= earlier.EarlyDataAccepted
	d.EarlyDataRejected -= earlier.EarlyDataRejected
	d.QUICRetries -= earlier.QUICRetries
	d.QUICRefused -= earlier.QUICRefused
	d.HasEarlyData = s.HasEarlyData && earlier.HasEarlyData
	d.Instructions = callgrind.Between(s.Instructions, earlier.Instructions)
	return d
}
