package report

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/tlsbench/tlsbench/results"
)

// csvColumn is one column of the CSV format. Its name is the record's JSON
// field name (env fields are prefixed with "env."), and its cell is empty
// exactly when the JSON value is null or omitted.
type csvColumn struct {
	name string
	cell func(r *results.Record) string
}

// csvColumns are the scalar fields of a record, in the order of
// results.Record. The non-scalar fields (samples_us, histogram,
// errors_by_kind, extra, notes, env.peers) are left to the json format.
var csvColumns = []csvColumn{
	{"name", func(r *results.Record) string { return r.Name }},
	{"kind", func(r *results.Record) string { return r.Kind }},
	{"tls_version", func(r *results.Record) string { return r.TLSVersion }},
	{"resume", func(r *results.Record) string { return strconv.FormatBool(r.Resume) }},
	{"mutual", func(r *results.Record) string { return strconv.FormatBool(r.Mutual) }},
	{"concurrency", func(r *results.Record) string { return strconv.Itoa(r.Concurrency) }},
	{"key_type", func(r *results.Record) string { return r.KeyType }},
	{"group", func(r *results.Record) string { return r.Group }},
	{"transport", func(r *results.Record) string { return r.Transport }},
	{"target", func(r *results.Record) string { return r.Target }},
	{"request", func(r *results.Record) string { return r.Request }},
	{"request_auto", func(r *results.Record) string { return omitFalse(r.RequestAuto) }},
	{"session_store", func(r *results.Record) string { return r.SessionStore }},
	{"client_identities", func(r *results.Record) string { return omitZero(r.ClientIdentities) }},
	{"key_cache", func(r *results.Record) string { return csvBool(r.KeyCache) }},
	{"handshakes", func(r *results.Record) string { return strconv.FormatInt(r.Handshakes, 10) }},
	{"errors", func(r *results.Record) string { return strconv.FormatInt(r.Errors, 10) }},
	{"resumed", func(r *results.Record) string { return strconv.FormatInt(r.Resumed, 10) }},
	{"resumption_rate", func(r *results.Record) string { return CSVFloat(r.ResumptionRate) }},
	{"server_resumed", func(r *results.Record) string { return csvInt(r.ServerResumed) }},
	{"iterations", func(r *results.Record) string { return strconv.Itoa(r.Iterations) }},
	{"mean_us", func(r *results.Record) string { return CSVFloat(r.MeanUS) }},
	{"error_us", func(r *results.Record) string { return csvFloatPtr(r.ErrorUS) }},
	{"stddev_us", func(r *results.Record) string { return CSVFloat(r.StddevUS) }},
	{"median_us", func(r *results.Record) string { return CSVFloat(r.MedianUS) }},
	{"min_us", func(r *results.Record) string { return CSVFloat(r.MinUS) }},
	{"max_us", func(r *results.Record) string { return CSVFloat(r.MaxUS) }},
	{"p50_us", func(r *results.Record) string { return CSVFloat(r.P50US) }},
	{"p90_us", func(r *results.Record) string { return CSVFloat(r.P90US) }},
	{"p99_us", func(r *results.Record) string { return CSVFloat(r.P99US) }},
	{"p999_us", func(r *results.Record) string { return CSVFloat(r.P999US) }},
	{"handshakes_per_sec", func(r *results.Record) string { return CSVFloat(r.HandshakesPerSec) }},
	{"client_cpu_us", func(r *results.Record) string { return csvFloatPtr(r.ClientCPUUS) }},
	{"server_cpu_us", func(r *results.Record) string { return csvFloatPtr(r.ServerCPUUS) }},
	{"process_cpu_us", func(r *results.Record) string { return csvFloatPtr(r.ProcessCPUUS) }},
	{"alloc_bytes", func(r *results.Record) string { return CSVFloat(r.AllocBytes) }},
	{"server_alloc_bytes", func(r *results.Record) string { return csvFloatPtr(r.ServerAllocBytes) }},
	{"handshake_mean_us", func(r *results.Record) string { return csvFloatPtr(r.HandshakeMeanUS) }},
	{"handshake_error_us", func(r *results.Record) string { return csvFloatPtr(r.HandshakeErrorUS) }},
	{"handshake_stddev_us", func(r *results.Record) string { return csvFloatPtr(r.HandshakeStddevUS) }},
	{"handshake_median_us", func(r *results.Record) string { return csvFloatPtr(r.HandshakeMedianUS) }},
	{"handshake_min_us", func(r *results.Record) string { return csvFloatPtr(r.HandshakeMinUS) }},
	{"handshake_max_us", func(r *results.Record) string { return csvFloatPtr(r.HandshakeMaxUS) }},
	{"buffer_bytes", func(r *results.Record) string { return omitZero(r.BufferBytes) }},
	{"cipher", func(r *results.Record) string { return r.Cipher }},
	{"direction", func(r *results.Record) string { return r.Direction }},
	{"ktls_tx", func(r *results.Record) string { return csvBool(r.KTLSTX) }},
	{"ktls_rx", func(r *results.Record) string { return csvBool(r.KTLSRX) }},
	{"mbps", func(r *results.Record) string { return csvFloatPtr(r.MBps) }},
	{"client_cpu_pct", func(r *results.Record) string { return csvFloatPtr(r.ClientCPUPct) }},
	{"server_cpu_pct", func(r *results.Record) string { return csvFloatPtr(r.ServerCPUPct) }},
	{"cpus_available", func(r *results.Record) string { return omitZero(r.CPUsAvailable) }},
	{"machine_busy", func(r *results.Record) string { return csvFloatPtr(r.MachineBusy) }},
	{"other_cpu_share", func(r *results.Record) string { return csvFloatPtr(r.OtherCPUShare) }},
	{"listen_overflows", func(r *results.Record) string { return csvInt(r.ListenOverflows) }},
	{"listen_drops", func(r *results.Record) string { return csvInt(r.ListenDrops) }},
	{"verdict", func(r *results.Record) string { return r.Verdict }},
	{"proxy", func(r *results.Record) string { return r.Proxy }},
	{"proxy_cpu_us", func(r *results.Record) string { return csvFloatPtr(r.ProxyCPUUS) }},
	{"proxy_relay", func(r *results.Record) string { return r.ProxyRelay }},
	{"proxy_mints", func(r *results.Record) string { return csvInt(r.ProxyMints) }},
	{"proxy_mint_hits", func(r *results.Record) string { return csvInt(r.ProxyMintHits) }},
	{"proxy_resumed", func(r *results.Record) string { return csvInt(r.ProxyResumed) }},
	{"read_fill", func(r *results.Record) string { return csvBool(r.ReadFill) }},
	{"mint_cache", func(r *results.Record) string { return csvBool(r.MintCache) }},
	{"side", func(r *results.Record) string { return r.Side }},
	{"versus", func(r *results.Record) string { return r.Versus }},
	{"target_error", func(r *results.Record) string { return csvFloatPtr(r.TargetError) }},
	{"stopped_by", func(r *results.Record) string { return r.StoppedBy }},
	{"arrival", func(r *results.Record) string { return r.Arrival }},
	{"rate_target", func(r *results.Record) string { return csvFloatPtr(r.RateTarget) }},
	{"rate_achieved", func(r *results.Record) string { return csvFloatPtr(r.RateAchieved) }},
	{"max_inflight", func(r *results.Record) string {
		if r.MaxInflight == 0 {
			return ""
		}
		return strconv.Itoa(r.MaxInflight)
	}},
	{"late", func(r *results.Record) string { return csvInt(r.Late) }},
	{"dropped", func(r *results.Record) string { return csvInt(r.Dropped) }},
	{"start_lateness_p50_us", func(r *results.Record) string { return csvFloatPtr(r.StartLatenessP50US) }},
	{"start_lateness_p99_us", func(r *results.Record) string { return csvFloatPtr(r.StartLatenessP99US) }},
	{"service_p50_us", func(r *results.Record) string { return csvFloatPtr(r.ServiceP50US) }},
	{"service_p90_us", func(r *results.Record) string { return csvFloatPtr(r.ServiceP90US) }},
	{"service_p99_us", func(r *results.Record) string { return csvFloatPtr(r.ServiceP99US) }},
	{"service_p999_us", func(r *results.Record) string { return csvFloatPtr(r.ServiceP999US) }},
	{"duration_us", func(r *results.Record) string { return csvFloatPtr(r.DurationUS) }},
	{"resume_ratio", func(r *results.Record) string { return csvFloatPtr(r.ResumeRatio) }},
	{"slo", func(r *results.Record) string { return r.SLO }},
	{"slo_met", func(r *results.Record) string { return csvBool(r.SLOMet) }},
	{"rate_sustained", func(r *results.Record) string { return csvFloatPtr(r.RateSustained) }},
	{"rate_failed", func(r *results.Record) string { return csvFloatPtr(r.RateFailed) }},
	{"search_limit", func(r *results.Record) string { return r.SearchLimit }},
	{"steps", func(r *results.Record) string {
		if r.Steps == 0 {
			return ""
		}
		return strconv.Itoa(r.Steps)
	}},
	{"shard", func(r *results.Record) string {
		if r.Shard == nil {
			return ""
		}
		return strconv.Itoa(*r.Shard)
	}},
	{"shards", func(r *results.Record) string { return omitZero(r.Shards) }},
	{"run_plan", func(r *results.Record) string { return r.RunPlan }},
	{"start_at", func(r *results.Record) string { return r.StartAt }},
	{"case_started", func(r *results.Record) string { return r.CaseStarted }},
	{"case_ended", func(r *results.Record) string { return r.CaseEnded }},
	{"start_late_us", func(r *results.Record) string { return csvFloatPtr(r.StartLateUS) }},
	{"quic_version", func(r *results.Record) string { return r.QUICVersion }},
	{"early_data", func(r *results.Record) string { return csvBool(r.EarlyData) }},
	{"early_data_policy", func(r *results.Record) string { return r.EarlyDataPolicy }},
	{"early_data_offered", func(r *results.Record) string { return csvInt(r.EarlyDataOffered) }},
	{"early_data_accepted", func(r *results.Record) string { return csvInt(r.EarlyDataAccepted) }},
	{"early_data_rejected", func(r *results.Record) string { return csvInt(r.EarlyDataRejected) }},
	{"server_early_data_accepted", func(r *results.Record) string { return csvInt(r.ServerEarlyDataAccepted) }},
	{"server_early_data_rejected", func(r *results.Record) string { return csvInt(r.ServerEarlyDataRejected) }},
	{"server_quic_retries", func(r *results.Record) string { return csvInt(r.ServerQUICRetries) }},
	{"server_quic_refused", func(r *results.Record) string { return csvInt(r.ServerQUICRefused) }},
	{"resumption", func(r *results.Record) string { return r.Resumption }},
	{"server_cpu_tick_us", func(r *results.Record) string { return csvFloatPtr(r.ServerCPUTickUS) }},
	{"proxy_cpu_tick_us", func(r *results.Record) string { return csvFloatPtr(r.ProxyCPUTickUS) }},
	{"server_instructions_per_hs", func(r *results.Record) string { return csvFloatPtr(r.ServerInstructionsPerHS) }},
	{"client_instructions_per_hs", func(r *results.Record) string { return csvFloatPtr(r.ClientInstructionsPerHS) }},
	{"env.tlsbench_version", func(r *results.Record) string { return r.Env.TLSBenchVersion }},
	{"env.go_version", func(r *results.Record) string { return r.Env.GoVersion }},
	{"env.goos", func(r *results.Record) string { return r.Env.GOOS }},
	{"env.goarch", func(r *results.Record) string { return r.Env.GOARCH }},
	{"env.gomaxprocs", func(r *results.Record) string { return strconv.Itoa(r.Env.GOMAXPROCS) }},
	{"env.num_cpu", func(r *results.Record) string { return strconv.Itoa(r.Env.NumCPU) }},
	{"env.cpu_model", func(r *results.Record) string { return r.Env.CPUModel }},
	{"env.kernel", func(r *results.Record) string { return r.Env.Kernel }},
	{"env.gcm_aes_driver", func(r *results.Record) string { return r.Env.GCMAESDriver }},
	{"env.insecure", func(r *results.Record) string {
		if !r.Env.Insecure {
			return ""
		}
		return "true"
	}},
	{"env.started", func(r *results.Record) string { return r.Env.Started }},
	{"env.host", func(r *results.Record) string { return r.Env.Host }},
}

// CSVFloat formats v with the fewest digits that read back as v, without
// an exponent, as spreadsheets expect.
func CSVFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func csvFloatPtr(v *float64) string {
	if v == nil {
		return ""
	}
	return CSVFloat(*v)
}

func csvInt(v *int64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatInt(*v, 10)
}

// omitFalse writes a flag that records leave out when false: "true" or
// an empty cell.
func omitFalse(v bool) string {
	if v {
		return "true"
	}
	return ""
}

func csvBool(v *bool) string {
	if v == nil {
		return ""
	}
	return strconv.FormatBool(*v)
}

// omitZero mirrors an omitempty int field: empty when zero.
func omitZero(v int) string {
	if v == 0 {
		return ""
	}
	return strconv.Itoa(v)
}

type csvEncoder struct {
	w         *csv.Writer
	wroteHead bool
}

func newCSVEncoder(w io.Writer) *csvEncoder { return &csvEncoder{w: csv.NewWriter(w)} }

func (e *csvEncoder) header() {
	if e.wroteHead {
		return
	}
	e.wroteHead = true
	row := make([]string, len(csvColumns))
	for i, c := range csvColumns {
		row[i] = c.name
	}
	e.w.Write(row) // errors are sticky; Flush and Error report them
}

func (e *csvEncoder) add(rec *results.Record) error {
	e.header()
	row := make([]string, len(csvColumns))
	for i, c := range csvColumns {
		row[i] = c.cell(rec)
	}
	e.w.Write(PrintableRow(row))
	e.w.Flush()
	return e.w.Error()
}

func (e *csvEncoder) close() error {
	e.header()
	e.w.Flush()
	return e.w.Error()
}
