package loadgen

import (
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tlsbench/tlsbench/bulk"
	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
)

// Directions of a throughput case, as the results name them: download (the server sends), upload (the client sends), both.
const (
	DirectionDownload = "download"
	DirectionUpload   = "upload"
	DirectionBoth     = "both"
)

// RunThroughput measures tc and returns its record. The record is also
// returned with an error when ctx ended part-way (what was measured is
// kept); any other failure comes as a *ThroughputError, with the record
// of the iterations measured before it, marked failed, when there were
// any (a peer that died mid-case: its death may be seen before or after
// the transfer breaks, and the figures before it are kept either way),
// and a nil record otherwise.
//
// The record (kind "throughput"):
//   - mbps: payload bytes of all connections and directions over the
//     measured time, in 10^6 bytes per second (the report derives Gbit/s);
//   - samples_us: one value per measured iteration, the microseconds it
//     took per megabyte (10^6 payload bytes): a time per unit of work,
//     lower is better, like a handshake case's microseconds per handshake,
//     so that mean_us, error_us, stddev_us, median_us, min_us and max_us
//     summarise them the same way. With Bytes set every iteration moves the
//     same amount and mbps = 10^6 / mean_us; extra.mbps_min, mbps_max and
//     mbps_error (99.9% half-width) describe the per-iteration rates;
//   - client_cpu_pct, server_cpu_pct: each process's CPU time over the
//     measured time, in percent of one CPU (the server's from its own
//     counters, so only for a server in a process of its own; otherwise
//     extra.process_cpu_pct). extra.client_cpu_s_per_gb and
//     server_cpu_s_per_gb are CPU-seconds per 10^9 bytes;
//   - cipher: the cipher negotiated (never another than the case's);
//     ktls_tx, ktls_rx: see ktlsFields; extra.{client,server}_ktls_{tx,rx}:
//     each end; extra.sendfile for a file source;
//   - extra.tls_*: /proc/net/tls_stat deltas (TlsTxSw -> tls_tx_sw) from
//     before the connections opened to after the last iteration, when the
//     kernel has the file. The file counts the whole network namespace:
//     both ends here, and anything else running;
//   - handshakes: the connections opened (one handshake each, not
//     measured); notes: the kTLS fallback reasons, the file source path
//     taken.
func RunThroughput(ctx context.Context, tc ThroughputCase) (*results.Record, error) {
	fail := func(err error) (*results.Record, error) {
		return nil, &ThroughputError{Case: tc.Name, Err: err}
	}
	if err := tc.validate(); err != nil {
		return fail(err)
	}
	cfg, err := ThroughputConfig(tc.Client, tc.Version, tc.Cipher)
	if err != nil {
		return fail(err)
	}
	// Probed for this version and cipher before any connection (and
	// before the tls_stat window: the probe's socket is not counted).
	use, reason, err := tc.KTLS.DecideFor(tc.Version, tc.Cipher, ktls.Both)
	if err != nil {
		return fail(fmt.Errorf("%s on: %w", tc.Words.Name("KTLS"), err))
	}
	if tc.isHTTP() && tc.KTLS == ktls.ModeAuto {
		use, reason = false, httpNote
	}
	r := &tpRunner{tc: &tc, cfg: cfg, useKTLS: use}
	if tc.isHTTP() {
		r.host = r.httpHost()
	}
	if reason != "" && tc.KTLS == ktls.ModeAuto {
		r.notes = append(r.notes, tc.Words.Name("KTLS")+" auto: "+reason)
	}
	if err := r.loadSource(); err != nil {
		return fail(err)
	}
	statBefore, statErr := ktls.ReadTLSStat()
	if tc.Proxy != nil {
		// The proxy counts a connection's relay modes when its relay
		// starts: before the measured iterations.
		if s, err := tc.Proxy.Snapshot(); err == nil && s.HasCounts {
			r.proxyBase = &s
		}
	}

	if err := r.openAll(ctx); err != nil {
		r.closeAll()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return fail(err)
	}
	defer r.closeAll()
	stop := context.AfterFunc(ctx, func() {
		for _, c := range r.conns {
			c.raw.SetDeadline(time.Now())
		}
	})
	defer stop()

	if err := r.warmup(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return fail(err)
	}
	m, err := r.measure(ctx)
	if err != nil {
		return nil, err
	}
	rec := r.record(m, r.summarise(m))
	if m.stopErr != nil {
		rec.Notes = append(rec.Notes, fmt.Sprintf("interrupted after %d of %d iterations", len(m.samples), tc.Iterations))
		err = fmt.Errorf("%s: %w", tc.Name, m.stopErr)
	}
	if m.failed != nil {
		rec.Verdict, rec.StoppedBy = measure.VerdictFailed, results.StoppedFailed
		rec.Notes = append(rec.Notes, fmt.Sprintf("failed after %d of %d iterations: %v", len(m.samples), tc.Iterations, m.failed.Err))
		err = m.failed
	}
	if statErr == nil {
		if after, err := ktls.ReadTLSStat(); err == nil {
			for k, v := range ktls.StatDelta(statBefore, after) {
				rec.Extra[statKey(k)] = float64(v)
			}
		}
	}
	return rec, err
}

// warmup runs the discarded iterations. A case time bounds them too, to
// a quarter of it: a case of 100 GiB per iteration must not warm up for
// minutes.
func (r *tpRunner) warmup(ctx context.Context) error {
	tc := r.tc
	var warmEnd time.Time
	if tc.MaxDuration > 0 {
		warmEnd = time.Now().Add(tc.MaxDuration / 4)
	}
	for i := 0; i < tc.Warmup; i++ {
		it, err := r.iteration(ctx, warmEnd)
		if err != nil {
			return err
		}
		r.progress(true, i+1, tc.Warmup, it)
		if it.cut {
			r.notes = append(r.notes, fmt.Sprintf("warm-up cut short after %v by %s %v", tc.MaxDuration/4, tc.Words.Name("MaxDuration"), tc.MaxDuration))
			break
		}
	}
	return nil
}

// statKey turns a /proc/net/tls_stat name into a results key:
// TlsTxSw -> tls_tx_sw.
func statKey(name string) string {
	var b strings.Builder
	for i, r := range name {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// tpRunner is one throughput case in progress.
type tpRunner struct {
	tc      *ThroughputCase
	cfg     *tls.Config
	useKTLS bool
	host    string // the Host header of the HTTP request form
	// proxyBase is the proxy's counts before the connections opened.
	proxyBase *measure.ProxySnapshot
	conns     []*tpConn
	notes     []string

	// A file source: its size, and its contents when small enough to
	// compare exactly, else the SHA-256 of one pass.
	srcSize    int64
	srcContent []byte
	srcSum     [sha256.Size]byte
}

// maxSourceInMemory is the largest file source the client holds to
// compare byte by byte; larger ones are checked by the SHA-256 of each
// pass, which costs the client more CPU.
const maxSourceInMemory = 64 << 20

func (r *tpRunner) loadSource() error {
	src := r.tc.Source
	if src == nil {
		return nil
	}
	bad := func(reason string) error { return &field.Error{Field: "Source.Path", Value: src.Path, Reason: reason} }
	f, err := os.Open(src.Path)
	if err != nil {
		return bad(err.Error())
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return bad(err.Error())
	}
	if !fi.Mode().IsRegular() || fi.Size() == 0 {
		return bad("not a non-empty regular file")
	}
	r.srcSize = fi.Size()
	if r.srcSize <= maxSourceInMemory {
		r.srcContent = make([]byte, r.srcSize)
		_, err = io.ReadFull(f, r.srcContent)
	} else {
		h := sha256.New()
		_, err = io.Copy(h, f)
		h.Sum(r.srcSum[:0])
		r.notes = append(r.notes, fmt.Sprintf("file source of %d MiB checked by SHA-256 per pass: client CPU includes hashing", r.srcSize>>20))
	}
	if err != nil {
		return bad(err.Error())
	}
	return nil
}

// roundBytes is the size of a bytes-mode round: Bytes, rounded up to
// whole passes for a file source.
func (r *tpRunner) roundBytes(n int64) int64 {
	if r.srcSize == 0 {
		return n
	}
	return max(1, (n+r.srcSize-1)/r.srcSize) * r.srcSize
}

func (r *tpRunner) directions() int {
	switch r.tc.Direction {
	case DirectionUpload:
		return bulk.Upload
	case DirectionBoth:
		return bulk.Download | bulk.Upload
	}
	return bulk.Download
}

func (r *tpRunner) openAll(ctx context.Context) error {
	r.conns = make([]*tpConn, r.tc.Concurrency)
	errs := make([]error, len(r.conns))
	var wg sync.WaitGroup
	for i := range r.conns {
		wg.Go(func() { r.conns[i], errs[i] = r.open(ctx, i) })
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return err
	}
	reasons := map[string]bool{}
	for _, c := range r.conns {
		for _, why := range c.userSpace {
			reasons[why] = true
		}
	}
	for _, why := range sortedKeys(reasons) {
		if r.tc.KTLS == ktls.ModeOn {
			return fmt.Errorf("%s on: %s", r.tc.Words.Name("KTLS"), why)
		}
		r.notes = append(r.notes, r.tc.Words.Name("KTLS")+" auto: "+why)
	}
	return nil
}

func (r *tpRunner) closeAll() {
	for _, c := range r.conns {
		if c != nil {
			c.raw.SetDeadline(time.Now().Add(time.Second))
			c.conn.Close() // close_notify: the server's normal end
		}
	}
}

// tpConn is the client's end of one throughput connection.
type tpConn struct {
	id        int
	raw       net.Conn // the TCP connection
	conn      net.Conn // *ktls.Conn or *tls.Conn: what the data goes through
	state     tls.ConnectionState
	ack       bulk.Ack
	clientTX  bool
	clientRX  bool
	userSpace []string // why an end stayed in user space
	buf       []byte
	rounds    uint64
	hr        *bulk.HTTPReader // the HTTP request form's answers
}

// open dials, handshakes, sends the setup, reads the ack and switches the
// client's end to kTLS, in that order (see bulk.Setup for why).
func (r *tpRunner) open(ctx context.Context, id int) (*tpConn, error) {
	tc := r.tc
	cctx, cancel := context.WithTimeout(ctx, tc.ConnTimeout)
	defer cancel()
	raw, err := tc.Dialer.Dial(cctx, time.Now().Add(tc.ConnTimeout))
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	raw.SetDeadline(time.Now().Add(tc.ConnTimeout))
	under, cfg := raw, r.cfg
	var rc *ktls.RecordConn
	if r.useKTLS {
		// A record-exact reader and a config logging this connection's
		// secrets into it alone.
		rc = ktls.WrapConn(raw)
		under, cfg = rc, ktls.ClientConfig(r.cfg, rc)
	}
	tlc := tls.Client(under, cfg)
	c := &tpConn{id: id, raw: raw, conn: tlc}
	failed := func(err error) (*tpConn, error) {
		raw.Close()
		return nil, err
	}
	if err := tlc.HandshakeContext(cctx); err != nil {
		return failed(fmt.Errorf("handshake: %w", err))
	}
	c.state = tlc.ConnectionState()
	if err := r.checkNegotiated(c.state); err != nil {
		return failed(err)
	}
	if tc.isHTTP() {
		return r.openedHTTP(c), nil
	}
	setup := bulk.Setup{KTLSTX: r.useKTLS, KTLSRX: r.useKTLS, Buffer: tc.Buffer}
	if tc.Source != nil {
		setup.Source = tc.Source.Index
	}
	if _, err := tlc.Write(setup.Marshal()); err != nil {
		return failed(fmt.Errorf("setup: %w", err))
	}
	if c.ack, err = bulk.ReadAck(tlc); err != nil {
		return failed(r.throughProxy(err))
	}
	if c.ack.Status != bulk.OK {
		return failed(fmt.Errorf("the server refused the throughput setup: %s", c.ack.Message))
	}
	if tc.Source != nil && c.ack.SourceSize != r.srcSize {
		return failed(&field.Error{Field: "Source.Path", Value: tc.Source.Path,
			Reason: fmt.Sprintf("the server's file has %d bytes, the client's %d: not the same file", c.ack.SourceSize, r.srcSize)})
	}
	if r.useKTLS {
		if c.ack.Message != "" && (!c.ack.KTLSTX || !c.ack.KTLSRX) {
			c.userSpace = append(c.userSpace, c.ack.Message)
		}
		kc, err := ktls.Enable(tlc, rc, ktls.Both, ktls.WithRxExpectNoPad())
		switch {
		case err == nil:
			if err := kc.Verify(); err != nil {
				kc.Close()
				return failed(err)
			}
			c.conn = kc
			c.clientTX, c.clientRX = kc.State().TX, kc.State().RX
		case errors.Is(err, ktls.ErrConnBroken):
			return failed(err)
		default:
			// tlc still works in user space.
			c.userSpace = append(c.userSpace, "client: user-space TLS: "+err.Error())
		}
	}
	raw.SetDeadline(time.Time{})
	c.buf = make([]byte, tc.Buffer)
	return c, nil
}

// checkNegotiated refuses to measure another version or cipher than the
// case names.
func (r *tpRunner) checkNegotiated(st tls.ConnectionState) error {
	tc := r.tc
	if st.Version != tc.Version {
		return fmt.Errorf("negotiated %s, want %s", tls.VersionName(st.Version), tls.VersionName(tc.Version))
	}
	if got := ktls.CipherOf(st.CipherSuite); got != tc.Cipher {
		hint := ""
		if tc.Version == tls.VersionTLS13 && tc.Cipher == ktls.CipherAES128GCM {
			hint = " (a Go server without AES hardware prefers ChaCha20-Poly1305 in TLS 1.3)"
		}
		return fmt.Errorf("negotiated %s, want %s%s: not measuring another cipher", tls.CipherSuiteName(st.CipherSuite), tc.Cipher, hint)
	}
	return nil
}

// phase picks where a round starts in the generated stream: different for
// every connection, round and direction, so that data delivered to the
// wrong connection or from an earlier round does not match.
func phase(conn int, round uint64, dir uint64) int64 {
	x := uint64(conn)<<40 ^ round<<1 ^ dir
	// splitmix64
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	x ^= x >> 31
	return int64(x % bulk.PatternPeriod)
}

// round moves n bytes each way the case's direction says, then reads the
// server's verdict.
func (r *tpRunner) round(ctx context.Context, c *tpConn, n int64) error {
	tc := r.tc
	if tc.isHTTP() {
		return r.roundHTTP(ctx, c, n)
	}
	c.rounds++
	rd := bulk.Round{Directions: r.directions(), Bytes: n}
	var v bulk.Verifier
	switch {
	case r.srcContent != nil:
		v = bulk.NewContentVerifier(r.srcContent)
	case r.srcSize > 0:
		v = bulk.NewPassHashVerifier(r.srcSize, r.srcSum)
	default:
		rd.DownloadPhase, rd.UploadPhase = phase(c.id, c.rounds, 0), phase(c.id, c.rounds, 1)
		v = bulk.NewPatternVerifier(rd.DownloadPhase)
	}
	c.raw.SetDeadline(time.Now().Add(tc.ConnTimeout))
	if _, err := c.conn.Write(rd.Marshal()); err != nil {
		return fmt.Errorf("round request: %w", err)
	}
	var wg sync.WaitGroup
	var sendErr error
	if rd.Directions&bulk.Upload != 0 {
		send := func() {
			g := &bulk.StallGuard{Conn: c.raw, Timeout: tc.ConnTimeout, Ctx: ctx}
			if sendErr = bulk.SendPattern(c.conn, n, rd.UploadPhase, tc.Buffer, g); sendErr != nil {
				sendErr = fmt.Errorf("upload: %w", sendErr)
			}
		}
		if rd.Directions&bulk.Download != 0 {
			wg.Go(send)
		} else {
			send()
		}
	}
	if rd.Directions&bulk.Download != 0 {
		g := &bulk.StallGuard{Conn: c.raw, Timeout: tc.ConnTimeout, Ctx: ctx}
		if _, err := bulk.Receive(c.conn, n, c.buf, v, false, g); err != nil {
			// Stop the upload (if any) and give up the connection: the
			// case fails.
			c.raw.SetDeadline(time.Now())
			wg.Wait()
			return fmt.Errorf("download: %w", err)
		}
	}
	wg.Wait()
	if sendErr != nil {
		return sendErr
	}
	c.raw.SetDeadline(time.Now().Add(tc.ConnTimeout))
	verdict, err := bulk.ReadVerdict(c.conn)
	if err != nil {
		return err
	}
	switch verdict.Status {
	case bulk.OK:
	case bulk.Integrity:
		return fmt.Errorf("upload: %w", &bulk.IntegrityError{Remote: verdict.Message})
	default:
		return fmt.Errorf("the server ended the round: %s", verdict.Message)
	}
	if rd.Directions&bulk.Upload != 0 && verdict.Received != n {
		return fmt.Errorf("upload: the server received %d of %d bytes", verdict.Received, n)
	}
	return nil
}

// tpIter is one iteration of a throughput case.
type tpIter struct {
	wall  time.Duration
	bytes int64 // payload bytes, all connections and directions
	cut   bool  // stopped at the case's deadline before its end
}

func (it tpIter) mbps() float64 {
	if it.wall <= 0 {
		return 0
	}
	return float64(it.bytes) / it.wall.Seconds() / 1e6
}

// Duration-mode rounds are sized to last about roundTarget at the rate
// seen so far, within these bounds: long enough that the round trip
// between rounds costs little, short enough that an iteration ends close
// to its duration.
const (
	roundTarget  = 100 * time.Millisecond
	minRoundSize = 256 << 10
	maxRoundSize = 64 << 20
)

// iteration runs one iteration on every connection at once. At deadline
// (when not zero) each connection stops after its round in progress: the
// iteration is then cut, and its bytes and time are what was moved.
func (r *tpRunner) iteration(ctx context.Context, deadline time.Time) (tpIter, error) {
	tc := r.tc
	dirs := int64(1)
	if tc.Direction == DirectionBoth {
		dirs = 2
	}
	start := make(chan struct{})
	var t0 time.Time
	moved := make([]int64, len(r.conns))
	errs := make([]error, len(r.conns))
	cut := make([]bool, len(r.conns))
	past := func() bool { return !deadline.IsZero() && !time.Now().Before(deadline) }
	var wg sync.WaitGroup
	for i, c := range r.conns {
		wg.Go(func() {
			<-start
			if tc.Bytes > 0 {
				// Rounds of at most maxRoundSize (whole passes of a
				// file source), so that a deadline can end a large
				// iteration between two of them.
				total, chunk := r.roundBytes(tc.Bytes), r.roundBytes(maxRoundSize)
				for sent := int64(0); sent < total; {
					n := min(chunk, total-sent)
					if errs[i] = r.round(ctx, c, n); errs[i] != nil {
						return
					}
					sent += n
					moved[i] += n * dirs
					if sent < total && past() {
						cut[i] = true
						return
					}
				}
				return
			}
			n := r.roundBytes(minRoundSize)
			for {
				began := time.Now()
				if errs[i] = r.round(ctx, c, n); errs[i] != nil {
					return
				}
				moved[i] += n * dirs
				left := tc.Duration - time.Since(t0)
				if left <= 0 || ctx.Err() != nil {
					return
				}
				if past() {
					cut[i] = true
					return
				}
				rate := float64(n) / time.Since(began).Seconds()
				next := int64(rate * min(roundTarget, left).Seconds())
				n = r.roundBytes(min(max(next, minRoundSize), maxRoundSize))
			}
		})
	}
	t0 = time.Now()
	close(start)
	wg.Wait()
	it := tpIter{wall: time.Since(t0)}
	for i := range moved {
		it.bytes += moved[i]
		it.cut = it.cut || cut[i]
	}
	return it, firstError(errs)
}

// firstError reports the first failed connection, and how many more
// failed, so that 128 connections failing alike give one line.
func firstError(errs []error) error {
	var first error
	failed := 0
	for i, err := range errs {
		if err != nil {
			if first == nil {
				first = fmt.Errorf("connection %d of %d: %w", i+1, len(errs), err)
			}
			failed++
		}
	}
	if failed > 1 {
		return fmt.Errorf("%w (and %d more connections failed)", first, failed-1)
	}
	return first
}

func (r *tpRunner) progress(warm bool, i, of int, it tpIter) {
	if r.tc.Progress != nil {
		r.tc.Progress(ThroughputProgress{Case: r.tc.Name, Warmup: warm, Iteration: i, Of: of, MBps: it.mbps()})
	}
}

// tpMeasured is what the kept measured iterations of a throughput case
// add up to.
type tpMeasured struct {
	// samples are microseconds per megabyte, rates megabytes per
	// second, one of each per kept iteration.
	samples, rates []float64
	total          tpIter
	meter          *measure.Meter
	stopErr        error // ctx ended part-way
	// failed is the iteration that failed after others were kept.
	failed *ThroughputError
}

// measure runs the measured iterations; it fails when none was kept (a
// *ThroughputError when the first failed). An iteration that fails after
// others were kept ends them, in m.failed.
func (r *tpRunner) measure(ctx context.Context) (*tpMeasured, error) {
	tc := r.tc
	m := &tpMeasured{meter: measure.NewMeter(tc.Server, tc.Proxy)}
	if tc.Measuring != nil {
		tc.Measuring(true)
		defer tc.Measuring(false)
	}
	began := time.Now()
	var deadline time.Time
	if tc.MaxDuration > 0 {
		deadline = began.Add(tc.MaxDuration)
	}
	for i := 0; i < tc.Iterations; i++ {
		if ctx.Err() != nil {
			m.stopErr = ctx.Err()
			break
		}
		m.meter.Begin()
		it, err := r.iteration(ctx, deadline)
		sp := m.meter.End()
		if err != nil {
			if ctx.Err() != nil {
				// Cut short by ctx: dropped, its span too.
				m.stopErr = ctx.Err()
				break
			}
			if len(m.samples) == 0 {
				return nil, &ThroughputError{Case: tc.Name, Err: err}
			}
			m.failed = &ThroughputError{Case: tc.Name, Err: err}
			break
		}
		m.meter.Keep(sp)
		// Microseconds per megabyte: a time per unit of work, lower is
		// better, like the handshake cases' microseconds per handshake.
		m.samples = append(m.samples, it.wall.Seconds()*1e6/(float64(it.bytes)/1e6))
		m.rates = append(m.rates, it.mbps())
		m.total.wall += it.wall
		m.total.bytes += it.bytes
		r.progress(false, i+1, tc.Iterations, it)
		if it.cut {
			r.notes = append(r.notes, r.cutNote(i+1, it))
			break
		}
		if tc.MaxDuration > 0 && len(m.samples) >= 2 && time.Since(began) >= tc.MaxDuration {
			break
		}
	}
	if len(m.samples) == 0 {
		return nil, fmt.Errorf("%s: %w", tc.Name, cmp.Or(m.stopErr, errors.New("no iteration was measured")))
	}
	return m, nil
}
