package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"github.com/tlsbench/tlsbench/internal/acceptloop"
	"github.com/tlsbench/tlsbench/internal/counts"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tlsbench/tlsbench/bulk"
	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/internal/ratelog"
	"github.com/tlsbench/tlsbench/internal/usage"
	"github.com/tlsbench/tlsbench/keys"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// Server is the built-in TLS server. Create it with New; it is safe for
// concurrent use.
type Server struct {
	tls              *tls.Config
	handshakeTimeout time.Duration
	firstByteTimeout time.Duration // WithFirstByteTimeout
	idleTimeout      time.Duration
	maxConns         int // WithMaxConns; the connections served at once, TCP and QUIC
	log              *slog.Logger
	connLog          *slog.Logger // log with the per-connection rate limit
	limit            *ratelog.Handler
	policy           *sessionPolicy // nil when built from a plain tls.Config
	km               *keys.Manager  // nil when built from a plain tls.Config
	ktls             bool           // set by WithKTLS: connections may switch to kTLS
	sources          []string       // WithSources: files throughput clients may ask for
	build            string         // WithBuild: the program serving, for a child's hello
	handshakeCPU     *handshakeCPU  // WithHandshakeCPU; nil without

	accepted   atomic.Int64
	handshakes atomic.Int64
	resumed    atomic.Int64
	active     atomic.Int64

	held            atomic.Int64 // slots taken under maxConns, by TCP and QUIC connections
	refusedMaxConns atomic.Int64

	mu         sync.Mutex
	failures   map[string]int64
	versions   map[string]int64
	groups     map[string]int64
	identities map[string]int64

	hsMu        sync.Mutex
	inHandshake map[*handshakeConn]struct{}
	quicPending map[*quicConn]struct{} // QUIC handshakes not counted yet

	phases phases

	// QUIC (ListenQUIC): the configuration before kTLS's per-connection
	// key log, which is for TCP; the counts QUIC adds; the handshakes
	// in flight, and those of them still waiting for their ClientHello;
	// the connection attempts asked to prove their address and those
	// refused; how many may wait, and how many handshakes may be in
	// flight, before either (quicMaxAwaitingHello,
	// quicRefuseAwaitingHello, quicMaxHandshaking,
	// quicRefuseHandshaking; a test lowers them); and whether ServeQUIC
	// is stopping.
	quicBase                                   *tls.Config
	quicVersions                               map[string]int64 // under mu
	earlyOffered, earlyAccepted, earlyRejected atomic.Int64
	quicHandshaking, quicAwaitingHello         atomic.Int64
	quicRetries, quicRefused                   atomic.Int64
	quicRefusals                               recentAddrs
	quicRetryAt, quicRefuseAt                  int64
	quicStopping                               atomic.Bool

	quicRetryHandshaking, quicRefuseHandshaking int64
}

// Option configures a Server.
type Option func(*Server)

// WithHandshakeTimeout bounds each handshake (default 10 s), so that a
// stalled client cannot hold a server goroutine forever.
func WithHandshakeTimeout(d time.Duration) Option {
	return func(s *Server) { s.handshakeTimeout = d }
}

// WithIdleTimeout closes a connection that sends nothing for d after its
// handshake (default DefaultIdleTimeout).
func WithIdleTimeout(d time.Duration) Option {
	return func(s *Server) { s.idleTimeout = d }
}

// WithLogger sets where the server logs failures worth a human's attention
// (default: discarded). What connections cause (a rejected handshake, a
// refused request) is logged at most 10 lines a second, then a line with
// the count of the others.
func WithLogger(l *slog.Logger) Option {
	return func(s *Server) { s.log = l }
}

// WithBuild names the program serving in the hello of a child server
// (see Hello.Build).
func WithBuild(b string) Option {
	return func(s *Server) { s.build = b }
}

// DefaultIdleTimeout is how long an echo connection may stay silent.
const DefaultIdleTimeout = 30 * time.Second

// New returns a server that completes handshakes with cfg.
func New(cfg *tls.Config, opts ...Option) *Server {
	s := &Server{
		tls:              cfg,
		handshakeTimeout: 10 * time.Second,
		firstByteTimeout: DefaultFirstByteTimeout,
		idleTimeout:      DefaultIdleTimeout,
		log:              slog.New(slog.DiscardHandler),
		failures:         make(map[string]int64),
		versions:         make(map[string]int64),
		groups:           make(map[string]int64),
		identities:       make(map[string]int64),
		inHandshake:      make(map[*handshakeConn]struct{}),
		quicPending:      make(map[*quicConn]struct{}),
		quicBase:         cfg,
		quicVersions:     make(map[string]int64),
		quicRetryAt:      quicMaxAwaitingHello,
		quicRefuseAt:     quicRefuseAwaitingHello,

		quicRetryHandshaking:  quicMaxHandshaking,
		quicRefuseHandshaking: quicRefuseHandshaking,
	}
	for _, o := range opts {
		o(s)
	}
	if s.maxConns <= 0 {
		s.maxConns = DefaultMaxConns()
	}
	if s.ktls {
		// Each connection logs its secrets into its own RecordConn.
		s.tls = ktls.ServerConfig(s.tls)
	}
	s.limit = ratelog.New(s.log.Handler(), ratelog.DefaultBurst, ratelog.DefaultWindow)
	s.connLog = slog.New(s.limit)
	return s
}

// Serve accepts connections from ln until ctx is done, then closes ln and
// waits for the connections it started to end. Over the connection cap
// (WithMaxConns), a connection is closed as soon as it is accepted.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	defer s.limit.Flush() // the count of lines not logged, if any
	return acceptloop.Serve(ctx, ln, s.log, s.serveCapped)
}

// ServeConn runs one connection to its end: handshake, then echo until the
// peer closes. It closes c.
func (s *Server) ServeConn(ctx context.Context, c net.Conn) {
	accepted := time.Now()
	s.accepted.Add(1)
	s.active.Add(1)
	defer s.active.Add(-1)
	defer c.Close()

	var rc *ktls.RecordConn
	under := c
	if s.ktls {
		// kTLS needs a record-exact reader during the handshake.
		rc = ktls.WrapConn(c)
		under = rc
	}
	if s.km != nil {
		// The key manager reads signature_algorithms_cert from the raw
		// ClientHello, which crypto/tls does not expose.
		under = keys.RecordClientHello(under)
	}
	hc := s.trackHandshake(under)
	tc := tls.Server(hc, s.tls)
	if s.handshakeCPU != nil {
		hc.work = new(usage.Work)
		hc.work.Resume()
	}
	err := s.handshake(ctx, c, tc, hc, accepted)
	if hc.work != nil {
		hc.work.Pause()
	}
	if err != nil {
		if desc, ok := hc.plainAlert(); ok && strings.Contains(err.Error(), "bad record MAC") {
			err = fmt.Errorf("the client refused the handshake: %w (sent unencrypted)", tls.AlertError(desc))
		}
		kind := failureKind(err, s.km != nil && keys.Rejection(under) != nil)
		s.mu.Lock()
		s.failures[kind]++
		s.mu.Unlock()
		s.handshakeCounted(hc)
		s.logHandshakeFailure(remoteAddr(c), tc, kind, err)
		s.userSpace(rc)
		return
	}
	// Phases first: a snapshot that counts the handshake has its phases.
	s.recordPhases(hc, accepted)
	s.handshakeCPU.add(hc.work, tc.ConnectionState().DidResume)
	s.countHandshake(tc.ConnectionState())
	s.handshakeCounted(hc)
	s.echo(ctx, tc, rc)
}

// handshake runs tc's handshake over c (hc being the reader between
// them) until the handshake timeout after accepted, or the first-byte
// timeout when nothing came by then, or until ctx ends. It bounds the
// handshake with a deadline on c rather than a context with a timeout,
// for which crypto/tls would start a goroutine per handshake to watch
// it, and clears the deadline after.
func (s *Server) handshake(ctx context.Context, c net.Conn, tc *tls.Conn, hc *handshakeConn, accepted time.Time) error {
	deadline := accepted.Add(s.handshakeTimeout)
	c.SetDeadline(deadline)
	hc.firstRead = s.firstByteDeadline(ctx, c, accepted, deadline)
	// Registered after the deadlines above, so that it cannot be undone
	// by them; it runs at once if ctx has already ended.
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	err := tc.Handshake()
	stop()
	extraWork()
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return fmt.Errorf("%w: %w", cerr, err)
		}
		if hc.firstRead != nil && hc.last == nil && errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("the client sent nothing for %v: %w", s.firstByteTimeout, err)
		}
		return err
	}
	c.SetDeadline(time.Time{})
	return nil
}

// logHandshakeFailure writes the one line a failed handshake gets:
// warning level for what the server refused, info for what the client
// gave up on. tc is the TCP handshake's connection, nil for QUIC.
func (s *Server) logHandshakeFailure(remote string, tc *tls.Conn, kind string, err error) {
	level := slog.LevelWarn
	msg := "handshake rejected"
	if peerCaused(kind) {
		level, msg = slog.LevelInfo, "handshake failed"
	}
	if !s.connLog.Enabled(context.Background(), level) {
		return
	}
	attrs := []any{"remote", remote, "kind", kind, "reason", clip(err.Error())}
	if id := rejectedIdentity(err, tc); id != "" {
		attrs = append(attrs, "identity", id)
	}
	s.connLog.Log(context.Background(), level, msg, attrs...)
}

// countHandshake adds a completed handshake to the counters.
func (s *Server) countHandshake(st tls.ConnectionState) {
	s.handshakes.Add(1)
	if st.DidResume {
		s.resumed.Add(1)
	}
	s.mu.Lock()
	s.versions[tlsconf.VersionName(st.Version)]++
	s.groups[tlsconf.GroupName(st.CurveID)]++
	if len(st.PeerCertificates) > 0 {
		// On resumption crypto/tls restores the certificate from the
		// session: this counts the identity the session carries, which
		// is what a client with a wrongly scoped cache gets wrong.
		s.identities[IdentityKey(st.PeerCertificates[0])]++
	}
	s.mu.Unlock()
}

// echoBuffers hold the echo's read buffers, a record's size each: a new
// one per connection was over a quarter of the server's heap allocation
// per handshake, and so of its garbage collection.
var echoBuffers = sync.Pool{New: func() any { b := make([]byte, 16*1024); return &b }}

// echo writes back what it reads until EOF, an error, idle timeout or ctx
// ending; a connection that starts with an HTTP/1.x request gets an HTTP
// answer instead (serveHTTP). Errors here are the client's abortive close
// (RST) in the normal case and are not counted: the handshake is what the
// server measures.
// A connection whose first byte is bulk.Magic is a throughput client and
// goes to serveBulk instead; rc is its record-exact reader (WithKTLS).
func (s *Server) echo(ctx context.Context, tc *tls.Conn, rc *ktls.RecordConn) {
	stop := context.AfterFunc(ctx, func() { tc.NetConn().SetDeadline(time.Now()) })
	defer stop()
	bp := echoBuffers.Get().(*[]byte)
	defer echoBuffers.Put(bp)
	buf := *bp
	for first := true; ; first = false {
		tc.NetConn().SetReadDeadline(time.Now().Add(s.idleTimeout))
		if ctx.Err() != nil {
			// ctx may have ended between the last Read and this
			// deadline, which would then have undone its stop.
			return
		}
		n, err := tc.Read(buf)
		if first && n > 0 && buf[0] == bulk.Magic && err == nil {
			stop()
			s.serveBulk(ctx, tc, rc, buf[:n])
			return
		}
		if first {
			s.userSpace(rc)
			if n > 0 && looksLikeHTTP(buf[:n]) {
				s.serveHTTP(ctx, tc, buf[:n])
				tc.Close()
				return
			}
		}
		if errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() == nil {
			s.connLog.Debug("idle connection closed", "remote", remoteAddr(tc), "idle", s.idleTimeout)
		}
		if n > 0 {
			// A client that sends and never reads would otherwise
			// hold this goroutine in Write forever.
			tc.NetConn().SetWriteDeadline(time.Now().Add(s.idleTimeout))
			if _, werr := tc.Write(buf[:n]); werr != nil {
				s.connLog.Debug("echo connection closed: the client does not read", "remote", remoteAddr(tc), "err", clip(werr.Error()))
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				tc.Close() // answer close_notify with ours
			}
			return
		}
	}
}

// Identities describes the server's identities, in preference order (nil
// for a server built from a plain tls.Config).
func (s *Server) Identities() []keys.IdentityInfo {
	if s.km == nil {
		return nil
	}
	return s.km.Identities()
}

// Counters is a snapshot of what the server has done since it started.
type Counters struct {
	Accepted   int64 `json:"accepted"`
	Handshakes int64 `json:"handshakes"`
	Resumed    int64 `json:"resumed"`
	Active     int64 `json:"active"`
	// RefusedMaxConns counts the connections refused because the
	// connection cap was reached (WithMaxConns): TCP ones closed
	// unserved, and QUIC ones refused (also in QUICRefused).
	RefusedMaxConns int64 `json:"refused_max_conns,omitempty"`
	// Failures counts failed handshakes by connerr kind.
	Failures map[string]int64 `json:"failures,omitempty"`
	// Versions and Groups count completed handshakes by negotiated TLS
	// version and key-exchange group.
	Versions map[string]int64 `json:"versions,omitempty"`
	Groups   map[string]int64 `json:"groups,omitempty"`
	// Identities counts completed handshakes by the client certificate
	// the server saw (the first 8 bytes of its SHA-256 thumbprint, hex).
	Identities map[string]int64 `json:"identities,omitempty"`
	// Selected counts the handshakes each server identity was chosen
	// for, KeyLoads the private keys read from disk for a handshake and
	// KeyDecryptions the PKCS#12 files decrypted (at load and, with the
	// key cache off, per full handshake).
	Selected       map[string]int64 `json:"selected,omitempty"`
	KeyLoads       int64            `json:"key_loads,omitempty"`
	KeyDecryptions int64            `json:"key_decryptions,omitempty"`
	// Declined counts sessions the server refused to resume, by reason:
	// DeclinedRevoked, DeclinedUndecryptable (a ticket under a key it no
	// longer has), DeclinedEvicted, DeclinedExpired and DeclinedUnknown
	// (a stateful id never issued or already used once).
	Declined map[string]int64 `json:"declined,omitempty"`
	// Phases are the server's phase histograms since it started, by
	// phase name (PhaseHandshake, PhaseKey, PhaseSessionStore), each
	// encoded as stats.Latency.Encode does; a phase the server does not
	// have (no key manager, no session resumption) is absent. Sub leaves
	// them out: histograms are differenced by the one who decodes them.
	Phases map[string]string `json:"phases,omitempty"`
	// HandshakeCPU is the CPU time the server's handshakes took on their
	// own goroutines (usage.Work), in nanoseconds by kind ("full",
	// "resumed"), and HandshakeCPULost how many handshakes could not be
	// measured whole; both only with WithHandshakeCPU.
	HandshakeCPU     map[string]int64 `json:"handshake_cpu_ns,omitempty"`
	HandshakeCPULost int64            `json:"handshake_cpu_lost,omitempty"`
	// QUICVersions counts completed QUIC handshakes by QUIC version
	// ("v1", "v2"). EarlyDataOffered counts QUIC handshakes whose
	// ClientHello offered early data, and EarlyDataAccepted and
	// EarlyDataRejected how many of those the server accepted (the
	// handshake completed as 0-RTT) or refused (by its policy, or QUIC's
	// own checks).
	QUICVersions      map[string]int64 `json:"quic_versions,omitempty"`
	EarlyDataOffered  int64            `json:"early_data_offered,omitempty"`
	EarlyDataAccepted int64            `json:"early_data_accepted,omitempty"`
	EarlyDataRejected int64            `json:"early_data_rejected,omitempty"`
	// QUICRetries counts the QUIC connection attempts that came with
	// their address proven, as after a Retry (a round trip more; a
	// client that keeps the server's address tokens proves it without
	// one, which tlsbench's does not), and QUICRefused those refused
	// (CONNECTION_REFUSED). The server asks for the proof, and refuses,
	// only while very many handshakes are in flight or wait for their
	// ClientHello, and refuses at the connection cap (also counted in
	// RefusedMaxConns): a benchmark's handshakes are then slower, or
	// failed.
	QUICRetries int64 `json:"quic_retries,omitempty"`
	QUICRefused int64 `json:"quic_refused,omitempty"`
	// CPUNanos and AllocBytes are the whole server process's CPU time and
	// cumulative heap allocation; meaningful only when the server runs
	// in a process of its own.
	CPUNanos   int64  `json:"cpu_ns"`
	AllocBytes uint64 `json:"alloc_bytes"`
	// Instructions is the whole server process's count of instructions
	// executed, when it runs under callgrind (ChildOptions.Instructions);
	// nil otherwise.
	Instructions *int64 `json:"instructions,omitempty"`
}

// Counters returns a snapshot of the server's counters, with this
// process's CPU time and allocations. It first lets the handshakes the
// server is working on be counted (see handshakeConn), so that a client
// that has seen its handshake end finds it in the snapshot.
func (s *Server) Counters() Counters {
	s.settle()
	u := usage.Self()
	c := Counters{
		Accepted:        s.accepted.Load(),
		Handshakes:      s.handshakes.Load(),
		Resumed:         s.resumed.Load(),
		Active:          s.active.Load(),
		RefusedMaxConns: s.refusedMaxConns.Load(),
		CPUNanos:        int64(u.CPU),
		AllocBytes:      u.AllocBytes,
	}
	s.mu.Lock()
	c.Failures = counts.Clone(s.failures)
	c.Versions = counts.Clone(s.versions)
	c.Groups = counts.Clone(s.groups)
	c.Identities = counts.Clone(s.identities)
	c.QUICVersions = counts.Clone(s.quicVersions)
	s.mu.Unlock()
	c.EarlyDataOffered, c.EarlyDataAccepted, c.EarlyDataRejected = s.earlyOffered.Load(), s.earlyAccepted.Load(), s.earlyRejected.Load()
	c.QUICRetries, c.QUICRefused = s.quicRetries.Load(), s.quicRefused.Load()
	if s.km != nil {
		ks := s.km.Stats()
		c.Selected, c.KeyLoads, c.KeyDecryptions = counts.Sub(ks.Selected, nil), ks.KeyLoads, ks.Decryptions
	}
	if p := s.policy; p != nil {
		c.Declined = counts.Sub(p.declined(), nil)
	}
	c.Phases = s.encodedPhases()
	s.handshakeCPU.counters(&c)
	return c
}

// Sub returns the counts between earlier and c (Active is c's).
func (c Counters) Sub(earlier Counters) Counters {
	d := Counters{
		Accepted:        c.Accepted - earlier.Accepted,
		Handshakes:      c.Handshakes - earlier.Handshakes,
		Resumed:         c.Resumed - earlier.Resumed,
		Active:          c.Active,
		RefusedMaxConns: c.RefusedMaxConns - earlier.RefusedMaxConns,
		Failures:        counts.Sub(c.Failures, earlier.Failures),
		Versions:        counts.Sub(c.Versions, earlier.Versions),
		Groups:          counts.Sub(c.Groups, earlier.Groups),
		Identities:      counts.Sub(c.Identities, earlier.Identities),
		Declined:        counts.Sub(c.Declined, earlier.Declined),
		Selected:        counts.Sub(c.Selected, earlier.Selected),
		KeyLoads:        c.KeyLoads - earlier.KeyLoads,
		KeyDecryptions:  c.KeyDecryptions - earlier.KeyDecryptions,
		QUICVersions:    counts.Sub(c.QUICVersions, earlier.QUICVersions),
		CPUNanos:        c.CPUNanos - earlier.CPUNanos,
		AllocBytes:      c.AllocBytes - earlier.AllocBytes,

		EarlyDataOffered:  c.EarlyDataOffered - earlier.EarlyDataOffered,
		EarlyDataAccepted: c.EarlyDataAccepted - earlier.EarlyDataAccepted,
		EarlyDataRejected: c.EarlyDataRejected - earlier.EarlyDataRejected,
		QUICRetries:       c.QUICRetries - earlier.QUICRetries,
		QUICRefused:       c.QUICRefused - earlier.QUICRefused,
	}
	return d
}
