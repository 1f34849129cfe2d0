package measure

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/connerr"
	"github.com/tlsbench/tlsbench/internal/usage"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// CaseError is a case that could not be measured at all (every handshake
// of an iteration failed).
type CaseError struct {
	Case  string
	Kind  string
	Err   error
	Count int
	// Hint, when set, is the advice at the end (from the case's Words).
	Hint string
}

func (e *CaseError) Error() string {
	msg := fmt.Sprintf("%s: all %d handshakes of an iteration failed (%s): %v", e.Case, e.Count, e.Kind, e.Err)
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

// NoneSucceeded is the error of an iteration in which no handshake
// succeeded: a CaseError naming the first failure, or, when it made no
// connection at all, an error that says so (a CaseError would read "all
// 0 handshakes failed" and name no failure).
func (hc *HandshakeCase) NoneSucceeded(it IterResult) error {
	if n := it.conns(); n > 0 && it.firstErr != nil {
		return hc.caseError(it.firstKind, it.firstErr, n)
	}
	return fmt.Errorf("%s: an iteration made no connection", hc.Name)
}

// caseError returns the CaseError of an iteration of n handshakes that
// all failed, the first with kind and err, with the advice for it.
func (hc *HandshakeCase) caseError(kind string, err error, n int) *CaseError {
	e := &CaseError{Case: hc.Name, Kind: kind, Err: err, Count: n}
	var wrongName x509.HostnameError
	switch {
	case kind == connerr.Verify && errors.As(err, &wrongName):
		e.Hint = hc.Words.AdviceFor(client.AdviceWrongName)
	case kind == connerr.Verify:
		e.Hint = hc.Words.AdviceFor(client.AdviceUntrusted)
	case strings.Contains(kind, "certificate required"):
		e.Hint = hc.Words.AdviceFor(client.AdviceClientCert)
	case kind == connerr.Refused:
		e.Hint = client.RefusedHint(err)
	case isPingMismatch(kind, err):
		e.Hint = hc.Words.AdviceFor(client.AdviceNotEcho)
	}
	return e
}

func (e *CaseError) Unwrap() error { return e.Err }

// IdentityError is a case in which the server saw other client identities
// than the client presented: sessions were resumed across identities.
type IdentityError struct {
	Case              string
	Presented, Served map[string]int64
}

func (e *IdentityError) Error() string {
	return fmt.Sprintf("%s: the server saw client identities %v while the client presented %v: a session was resumed under another identity",
		e.Case, e.Served, e.Presented)
}

// Figures are the statistics of a case's kept iterations, in the units
// of its record: summarising stands apart from measuring (measure) and
// from writing the record (finish).
type Figures struct {
	iters     stats.Summary // of the per-iteration samples
	latencyUS [4]float64    // p50, p90, p99 and p99.9 of single handshakes
	histogram string        // encoded; empty when encoding failed
	perSec    float64       // successful handshakes per second of wall time
	server    ServerSnapshot
	serverErr error // why server is unknown
	load      usage.Load
	hasLoad   bool
}

// Summarise computes the figures of the kept iterations.
func (r *Measurer) Summarise(m *Measured) Figures {
	f := Figures{iters: stats.Summarize(m.Samples)}
	for i, p := range []float64{50, 90, 99, 99.9} {
		f.latencyUS[i] = m.lat.PercentileUS(p)
	}
	if h, err := m.lat.Encode(); err == nil {
		f.histogram = h
	}
	if m.Total.Wall > 0 {
		// Successful handshakes over the wall time of the kept
		// iterations, failed connections' time included.
		f.perSec = float64(m.Total.OK) / m.Total.Wall.Seconds()
	}
	f.server, f.serverErr = m.Meter.ServerTotal()
	f.load, f.hasLoad = m.Meter.Load(m.Total.Wall, f.server, r.Case.transport() == "memory")
	return f
}

// Keep adds a measured iteration to the totals.
func (m *Measured) keep(it IterResult, sp span) {
	m.Samples = append(m.Samples, it.sample())
	m.sampleOK = append(m.sampleOK, it.OK)
	m.costs.keep(it.OK, sp)
	if it.Open == nil {
		m.hsSamples = append(m.hsSamples, float64(it.Handshakes.Nanoseconds())/1e3/float64(it.OK))
	}
	t := &m.Total
	if it.Open != nil {
		t.Open.add(it.Open)
	}
	t.Wall += it.Wall
	t.OK += it.OK
	t.resumed += it.resumed
	var failed int64
	for k, v := range it.failures {
		t.failures[k] += v
		failed += v
	}
	for k, v := range it.ciphers {
		t.ciphers[k] += v
	}
	for k, v := range it.groups {
		t.groups[k] += v
	}
	for k, v := range it.perClient {
		t.perClient[k] += v
	}
	for k, v := range it.failedBy {
		t.failedBy[k] += v
	}
	for k, v := range it.quicVersions {
		t.quicVersions[k] += v
	}
	t.Early.add(it.Early)
	if m.firstErr == nil && it.firstErr != nil {
		m.firstErr, m.firstKnd = it.firstErr, it.firstKind
	}
	st := iterStat{ok: it.OK, resumed: it.resumed, failed: failed}
	if sp.srvErr == nil && sp.srv.HasCounts {
		st.declined = sp.srv.Declined
		if st.declined == nil {
			st.declined = map[string]int64{}
		}
		st.hasServer, st.srvResumed, st.srvHandshakes = true, sp.srv.Resumed, sp.srv.Handshakes
	}
	m.iters = append(m.iters, st)
}

// Finish builds the record of the kept iterations from their figures
// and applies the gates.
func (r *Measurer) Finish(ctx context.Context, m *Measured, f Figures) (*results.Record, error) {
	hc := r.Case
	rec := r.baseRecord(m, f)
	rec.Phases = r.phaseRecords(m, f)
	rec.Parts = r.partFigures(m)
	if hc.ResumeRatio != nil {
		rec.ResumeRatio = results.Float(*hc.ResumeRatio)
	}
	rec.Notes = append(rec.Notes, m.Notes...)
	r.shardFigures(&rec, m)
	r.setCosts(&rec, m)
	identityErr := r.serverFigures(&rec, m, f)
	earlyErr := r.QUICFigures(&rec, m, f)
	r.partCPU(&rec, m, f)
	rec.Notes = append(rec.Notes, m.Meter.Back.Notes()...)
	if f.hasLoad {
		RecordMachine(&rec, f.load, true)
	}
	r.listenFigures(&rec, &m.Meter.Listen)
	if len(hc.ClientIdentities) > 0 {
		rec.ClientIdentities = len(hc.ClientIdentities)
	}
	rec.Notes = append(rec.Notes, r.headlineNotes(&rec, m)...)
	gates := *hc
	var lost *ErrorRateError
	if errors.As(m.StopErr, &lost) {
		// The error rate already failed the case, with the failures of
		// the iteration it stopped: the kept iterations' rate is only
		// noted.
		gates.MaxErrorRate = 1
	}
	gateErr := gates.gates(&rec, m.iters, m.firstErr, m.firstKnd)
	gateErr = errors.Join(gateErr, r.openFigures(&rec, m))
	if hc.Proxy != nil {
		prx, prxErr := m.Meter.ProxyTotal()
		ProxyFigures(&rec, hc.Proxy, prx, prxErr, float64(m.Total.OK))
		rec.Notes = append(rec.Notes, proxyLegNote)
		gateErr = errors.Join(gateErr, hc.ProxyResumedGate(&rec, prx, prxErr))
	}
	m.costs.record(&rec)
	for _, e := range []error{identityErr, earlyErr} {
		if e != nil {
			rec.Verdict = VerdictFailed
			rec.Notes = append(rec.Notes, "failed: "+strings.TrimPrefix(e.Error(), hc.Name+": "))
			gateErr = errors.Join(gateErr, e)
		}
	}
	if m.StopErr != nil {
		kept := len(m.Samples)
		if ctx.Err() != nil {
			rec.Notes = append(rec.Notes, fmt.Sprintf("interrupted after %d of %d iterations", kept, hc.Iterations))
			return &rec, fmt.Errorf("%s: %w", hc.Name, m.StopErr)
		}
		// An iteration failed outright: what came before it is kept,
		// and the case fails.
		rec.Verdict = VerdictFailed
		rec.Notes = append(rec.Notes, fmt.Sprintf("failed after %d of %d iterations: %v", kept, hc.Iterations, m.StopErr))
		return &rec, errors.Join(m.StopErr, gateErr)
	}
	return &rec, gateErr
}

// baseRecord fills the record's identity, counts and latency statistics.
func (r *Measurer) baseRecord(m *Measured, f Figures) results.Record {
	hc := r.Case
	total := m.Total
	rec := hc.Record
	rec.Name = hc.Name
	rec.Kind = results.KindHandshake
	rec.TLSVersion = tlsconf.VersionName(hc.Version)
	rec.Resume = hc.Resume
	rec.Mutual = hc.Mutual
	rec.Concurrency = hc.Concurrency
	rec.Transport = hc.transport()
	rec.Group = groupOf(total.groups)
	rec.Cipher = cipherOf(total.ciphers)
	rec.Handshakes = total.OK
	rec.Resumed = total.resumed
	rec.ResumptionRate = ratio(total.resumed, total.OK)
	rec.ErrorsByKind = nil
	rec.Errors = 0
	rec.Verdict = ""
	for k, v := range total.failures {
		if rec.ErrorsByKind == nil {
			rec.ErrorsByKind = map[string]int64{}
		}
		rec.ErrorsByKind[k] = v
		rec.Errors += v
	}
	SetSummary(&rec, m.Samples, f.iters)
	rec.SampleHandshakes = m.sampleOK
	rec.SetHandshakeFigure(m.handshakeSamples())
	rec.P50US, rec.P90US, rec.P99US, rec.P999US = f.latencyUS[0], f.latencyUS[1], f.latencyUS[2], f.latencyUS[3]
	rec.Histogram = f.histogram
	rec.HandshakesPerSec = f.perSec
	rec.StoppedBy = m.StoppedBy
	rec.TargetError = nil
	if hc.TargetError > 0 {
		rec.TargetError = results.Float(hc.TargetError)
	}
	return rec
}

// PerHandshake divides a cost over the successful handshakes.
func (m *Measured) perHandshake(d time.Duration) *float64 {
	return results.Float(float64(d.Nanoseconds()) / 1e3 / float64(m.Total.OK))
}

// setCosts fills the client's CPU and allocations per successful
// handshake, from the spans of the kept iterations only.
func (r *Measurer) setCosts(rec *results.Record, m *Measured) {
	self, wall := m.Meter.Total.Self, m.Total.Wall
	rec.ClientCPUUS, rec.ServerCPUUS, rec.ProcessCPUUS, rec.ServerResumed, rec.ServerAllocBytes = nil, nil, nil, nil, nil
	rec.AllocBytes = float64(self.AllocBytes) / float64(m.Total.OK)
	if wall > 0 && self.CPU > 0 && rec.Transport != "memory" {
		// A client that uses (nearly) all the cores it may run on is
		// measuring itself: the figures then describe the load
		// generator, not the server.
		used := self.CPU.Seconds() / wall.Seconds()
		if rec.Extra == nil {
			rec.Extra = map[string]float64{}
		}
		rec.Extra["client_cores_used"] = used
		if limit := float64(runtime.GOMAXPROCS(0)); used >= SaturationShare*limit {
			rec.Notes = append(rec.Notes, fmt.Sprintf(
				"load generator saturated: the client used %.2f of its %.0f cores; these figures describe the client, not the server", used, limit))
		}
	}
	if rec.Transport == "memory" {
		// Both ends share the process: neither side's CPU can be told
		// apart, so only the total is reported.
		rec.ProcessCPUUS = m.perHandshake(self.CPU)
		rec.Notes = append(rec.Notes, "memory transport: alloc_bytes counts both ends (one process)")
	} else if self.CPU > 0 {
		rec.ClientCPUUS = m.perHandshake(self.CPU)
	}
}

// serverFigures fills what the server counted over the kept iterations,
// and returns an IdentityError when it saw other client identities than
// the client presented, a ServerUnusedError when it completed none of
// the client's handshakes.
func (r *Measurer) serverFigures(rec *results.Record, m *Measured, f Figures) error {
	hc := r.Case
	if hc.Server == nil {
		return nil
	}
	srv := f.server
	if f.serverErr != nil {
		rec.Notes = append(rec.Notes, "server counters unavailable: "+f.serverErr.Error())
		return nil
	}
	total := m.Total
	if srv.HasCounts && srv.Handshakes == 0 && total.OK > 0 {
		// Nothing the server did is per handshake of this case: its
		// figures stay null, and the case fails.
		rec.ServerResumed = results.Int(srv.Resumed)
		return &ServerUnusedError{Case: hc.Name, Client: total.OK, Proxy: rec.Proxy != ""}
	}
	var identityErr error
	if srv.HasCounts {
		identityErr = hc.CheckIdentities(total.perClient, total.failedBy, srv.Identities)
		rec.ServerResumed = results.Int(srv.Resumed)
		if srv.Handshakes != total.OK {
			rec.Notes = append(rec.Notes, fmt.Sprintf(
				"server completed %d handshakes, client %d", srv.Handshakes, total.OK))
		}
		if srv.KeyDecryptions > 0 {
			if rec.Extra == nil {
				rec.Extra = map[string]float64{}
			}
			rec.Extra["server_key_decryptions_per_handshake"] = float64(srv.KeyDecryptions) / float64(total.OK)
		}
	}
	if srv.HasCPU {
		rec.ServerCPUUS = m.perHandshake(srv.CPU)
	}
	if srv.HasAlloc {
		rec.ServerAllocBytes = results.Float(float64(srv.AllocBytes) / float64(total.OK))
	}
	return identityErr
}

// CheckIdentities compares the identities the client presented with those
// the server counted. A connection that failed on the client may still
// have completed its handshake on the server (a timeout in the exchange,
// say), so for each identity the server's count must lie between the
// client's successes and its successes plus failures; outside that range,
// or for an identity never presented, a session was resumed under another
// identity than the one presented.
func (hc *HandshakeCase) CheckIdentities(ok, failed map[int]int64, served map[string]int64) error {
	if len(hc.ClientIdentities) == 0 {
		return nil
	}
	presented, maybe := map[string]int64{}, map[string]int64{}
	for i, n := range ok {
		presented[hc.ClientIdentities[i]] += n
	}
	for i, n := range failed {
		maybe[hc.ClientIdentities[i]] += n
	}
	bad := false
	for id, n := range served {
		if n < presented[id] || n > presented[id]+maybe[id] {
			bad = true
		}
	}
	for id, n := range presented {
		if served[id] < n {
			bad = true
		}
	}
	if bad {
		return &IdentityError{Case: hc.Name, Presented: presented, Served: served}
	}
	return nil
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// groupOf names the group the case negotiated: the one group all
// handshakes used, or the groups with their counts when they differed.
func groupOf(groups map[tls.CurveID]int64) string {
	if len(groups) == 1 {
		for g := range groups {
			return tlsconf.GroupName(g)
		}
	}
	parts := make([]string, 0, len(groups))
	for g, n := range groups {
		parts = append(parts, fmt.Sprintf("%s:%d", tlsconf.GroupName(g), n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// cipherOf names the cipher the case negotiated, as groupOf names the
// group: one name, or the names with their counts when they differed.
func cipherOf(ciphers map[uint16]int64) string {
	parts := make([]string, 0, len(ciphers))
	for c, n := range ciphers {
		if len(ciphers) == 1 {
			return tlsconf.CipherName(c)
		}
		parts = append(parts, fmt.Sprintf("%s:%d", tlsconf.CipherName(c), n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}
