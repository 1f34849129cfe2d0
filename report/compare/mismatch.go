package compare

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

// costField is a parameter of a case that changes what its work costs:
// two records that differ in one measure different things even when their
// names agree (a name does not carry the negotiated group, the session
// store or what kTLS actually did).
type costField struct {
	name  string
	value func(r *results.Record) string
	// throughputOnly fields are not compared for handshake cases.
	throughputOnly bool
	// recordedSince fields are compared for handshake cases only when
	// both sides recorded them (older handshake records lack them).
	recordedSince bool
	// sameKindOnly fields are compared only between records of one
	// kind: across kinds, their defaults differ with the kind, which
	// is listed already.
	sameKindOnly bool
}

const notRecorded = "not recorded"

var costFields = []costField{
	{name: "kind", value: func(r *results.Record) string { return r.Kind }},
	{name: "tls_version", value: func(r *results.Record) string { return orNotRecorded(r.TLSVersion) }},
	// An external server's key type is recorded since later than the
	// built-in server's: a target's record without one is not compared.
	{name: "key_type", value: func(r *results.Record) string { return orNotRecorded(r.KeyType) }, recordedSince: true},
	{name: "group", value: func(r *results.Record) string { return orNotRecorded(r.Group) }},
	{name: "mutual", value: func(r *results.Record) string { return strconv.FormatBool(r.Mutual) }},
	{name: "concurrency", value: func(r *results.Record) string { return strconv.Itoa(r.Concurrency) }},
	{name: "transport", value: func(r *results.Record) string { return orNotRecorded(r.Transport) }},
	{name: "target", value: func(r *results.Record) string {
		if r.Target == "" {
			return "the built-in server"
		}
		return r.Target
	}},
	{name: "proxy", value: func(r *results.Record) string {
		if r.Proxy == "" {
			return "none"
		}
		return r.Proxy
	}},
	{name: "request", value: effectiveRequest, recordedSince: true, sameKindOnly: true},
	{name: "certificate verification", value: func(r *results.Record) string {
		if r.Env.Insecure {
			return "off (--insecure)"
		}
		return "on"
	}},
	{name: "client_identities", value: func(r *results.Record) string { return strconv.Itoa(r.ClientIdentities) }},
	{name: "key_cache", value: func(r *results.Record) string { return boolOrNotRecorded(r.KeyCache) }},
	{name: "session_store", value: func(r *results.Record) string {
		if r.SessionStore == "" && r.Target != "" {
			return "unknown (external server)"
		}
		return orNotRecorded(r.SessionStore)
	}},
	{name: "cipher", value: func(r *results.Record) string { return orNotRecorded(r.Cipher) }, recordedSince: true},
	// A QUIC version, and what the built-in server did with early data,
	// change what a handshake and its first response cost.
	{name: "quic_version", value: func(r *results.Record) string { return orNone(r.QUICVersion) }},
	{name: "early_data_policy", value: func(r *results.Record) string { return orNone(r.EarlyDataPolicy) }},
	{name: "buffer_bytes", value: func(r *results.Record) string { return strconv.Itoa(r.BufferBytes) }, throughputOnly: true},
	{name: "direction", value: func(r *results.Record) string { return orNotRecorded(r.Direction) }, throughputOnly: true},
	{name: "ktls_tx", value: func(r *results.Record) string { return boolOrNotRecorded(r.KTLSTX) }, throughputOnly: true},
	{name: "ktls_rx", value: func(r *results.Record) string { return boolOrNotRecorded(r.KTLSRX) }, throughputOnly: true},
	{name: "client kTLS tx", value: extraShare("client_ktls_tx"), throughputOnly: true},
	{name: "client kTLS rx", value: extraShare("client_ktls_rx"), throughputOnly: true},
	{name: "server kTLS tx", value: extraShare("server_ktls_tx"), throughputOnly: true},
	{name: "server kTLS rx", value: extraShare("server_ktls_rx"), throughputOnly: true},
}

// orNone is s, or "none" for a field a case does not have (the QUIC
// version of a TCP case).
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// effectiveRequest is the exchange a case used: as recorded, or the
// default of the built-in server when none is, so that a record that
// wrote the default out (ping) and one that left it implied are not
// listed as differing.
func effectiveRequest(r *results.Record) string {
	switch {
	case r.Request != "":
		return r.Request
	case r.Target != "":
		return notRecorded
	case r.Proxy != "" && r.Proxy != "builtin":
		return "http" // the default through a proxy given by URL
	case isThroughput(r.Kind):
		return "bulk"
	}
	return "ping"
}

func orNotRecorded(s string) string {
	if s == "" {
		return notRecorded
	}
	return s
}

func boolOrNotRecorded(b *bool) string {
	if b == nil {
		return notRecorded
	}
	return strconv.FormatBool(*b)
}

// extraShare shows one end's kTLS state: the share of connections that
// had it, as a percentage.
func extraShare(key string) func(r *results.Record) string {
	return func(r *results.Record) string {
		v, ok := r.Extra[key]
		if !ok {
			return notRecorded
		}
		return report.Percent(v) + " of connections"
	}
}

// sideValue is the value of f over the pooled records of one side: the
// common value, or "mixed (a, b)" when they disagree (a pool of records
// that differ is itself not one case).
func sideValue(f costField, recs []*results.Record) string {
	var vals []string
	seen := map[string]bool{}
	for _, r := range recs {
		v := f.value(r)
		if !seen[v] {
			seen[v] = true
			vals = append(vals, v)
		}
	}
	if len(vals) == 1 {
		return vals[0]
	}
	return "mixed (" + strings.Join(vals, ", ") + ")"
}

// costDifferences lists, as "field: baseline vs candidate", every
// parameter that changes the cost of the work in which the two sides of a
// pair differ.
func costDifferences(base, cand []*results.Record) []string {
	return costDifferencesExcept(base, cand, nil)
}

// costDifferencesExcept is costDifferences leaving out the fields (and
// params, as "params.NAME") in skip: what an interleaved run sets apart
// on purpose.
func costDifferencesExcept(base, cand []*results.Record, skip map[string]bool) []string {
	throughput := isThroughput(base[0].Kind) || isThroughput(cand[0].Kind)
	var diffs []string
	for _, f := range costFields {
		if f.throughputOnly && !throughput || f.sameKindOnly && base[0].Kind != cand[0].Kind || skip[f.name] {
			continue
		}
		b, c := sideValue(f, base), sideValue(f, cand)
		if f.recordedSince && !throughput && (b == notRecorded || c == notRecorded) {
			continue
		}
		if b != c || strings.HasPrefix(b, "mixed (") {
			diffs = append(diffs, fmt.Sprintf("%s: %s vs %s", f.name, b, c))
		}
	}
	for _, d := range paramDifferences(base, cand) {
		name, _, _ := strings.Cut(d, ":")
		if !skip[name] {
			diffs = append(diffs, d)
		}
	}
	return diffs
}

// paramDifferences lists the case parameters in which the two sides
// differ, as "params.name: baseline vs candidate": a case that asked for
// something else measured something else, whatever its name. A parameter
// that one side does not record (a record written before params, or
// before that parameter existed) is not compared; the typed fields above
// still are.
func paramDifferences(base, cand []*results.Record) []string {
	names := map[string]bool{}
	for _, r := range append(slices.Clone(base), cand...) {
		for k := range r.Params {
			names[k] = true
		}
	}
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(names)) {
		f := costField{value: func(r *results.Record) string {
			if v, ok := r.Params[k]; ok {
				return v
			}
			return notRecorded
		}}
		b, c := sideValue(f, base), sideValue(f, cand)
		if strings.Contains(b, notRecorded) || strings.Contains(c, notRecorded) {
			continue
		}
		if b != c || strings.HasPrefix(b, "mixed (") {
			diffs = append(diffs, fmt.Sprintf("params.%s: %s vs %s", k, b, c))
		}
	}
	return diffs
}
