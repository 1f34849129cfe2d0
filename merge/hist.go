package merge

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// histAcc is one merged histogram of a case: the shards' histograms
// folded into it as they are read, and the shards that should have had
// one and did not (their latencies are unknown, so no percentile of the
// whole may be drawn without them).
type histAcc struct {
	sum     *stats.LatencySum // nil until a shard brings a histogram
	lane    int               // the folder's goroutine that folds into sum
	unknown []int
}

// add queues one shard's encoded histogram to be folded: enc is empty
// when the shard has none, and needed says whether it should have had
// one (it recorded latencies); count is how many latencies the record
// says it holds (-1: it does not say). pos, name and field say whose it
// is.
func (h *histAcc) add(f *folder, enc string, count int64, needed bool, shard int, pos Pos, name, field string) {
	if enc == "" {
		if needed {
			h.unknown = append(h.unknown, shard)
		}
		return
	}
	f.add(h, enc, count, pos, name, field)
}

// known reports whether every shard's latencies are in the histogram;
// the note says which were not, for the figures named by what.
func (h *histAcc) known(what string) (bool, string) {
	if len(h.unknown) == 0 {
		return true, ""
	}
	slices.Sort(h.unknown)
	return false, fmt.Sprintf("%s unknown: %s recorded latencies without their histogram (a tlsbench too old to merge?), and percentiles without them would be wrong",
		what, shardWord(h.unknown))
}

// latency returns the merged histogram; nil when no shard had one.
func (h *histAcc) latency() *stats.Latency {
	if h.sum == nil {
		return nil
	}
	return h.sum.Latency()
}

func shardWord(shards []int) string {
	if len(shards) == 1 {
		return "shard " + intList(shards)
	}
	return "shards " + intList(shards)
}

// phaseSet merges the phases of a case (or of one part of a mix): each
// phase's histogram, and which shards lacked a phase others measured.
type phaseSet struct {
	phases map[string]*phaseAcc
	order  []string
}

type phaseAcc struct {
	hist   histAcc
	seen   []int // shards whose record has the phase
	shared int   // records whose total phase is their latency histogram
	other  int   // records whose total phase is not, with a latency histogram
}

// add folds one shard's phases; prefix names the phases' field in
// errors. latency is the record's latency histogram (Record.Histogram),
// which its total phase repeats: that one is not decoded twice.
func (s *phaseSet) add(f *folder, pos Pos, name string, phases map[string]results.Phase, shard int, prefix, latency string) error {
	if s.phases == nil {
		s.phases = map[string]*phaseAcc{}
	}
	for _, pn := range slices.Sorted(maps.Keys(phases)) {
		p := phases[pn]
		acc := s.phases[pn]
		if acc == nil && len(s.phases) >= maxPhases {
			return &Error{Pos: pos, Case: name, Field: strings.TrimSuffix(prefix, "."), Reason: fmt.Sprintf("more than %d phases in the case's records; tlsbench records a handful", maxPhases)}
		}
		if acc == nil {
			acc = &phaseAcc{}
			s.phases[pn] = acc
			s.order = append(s.order, pn)
		}
		acc.seen = append(acc.seen, shard)
		if pn == results.PhaseTotal && latency != "" && p.Histogram == latency {
			acc.shared++
			continue
		}
		if pn == results.PhaseTotal && latency != "" {
			acc.other++
		}
		acc.hist.add(f, p.Histogram, p.Count, p.Count > 0, shard, pos, name, prefix+pn+".histogram")
	}
	return nil
}

// maxPhases bounds the phases of a case: each merged phase holds a
// histogram (~140 KiB), and a record naming thousands of phases was
// not written by tlsbench.
const maxPhases = 32

// finish returns the merged phases, leaving out (with a note) any phase
// a shard that made handshakes did not measure. withHandshakes are those
// shards; latency is the case's merged latency histogram, which the
// total phase repeats (nil for a part's phases).
func (s *phaseSet) finish(withHandshakes []int, what string, latency *histAcc, notes *[]string) (map[string]results.Phase, error) {
	if len(s.phases) == 0 {
		return nil, nil
	}
	out := map[string]results.Phase{}
	for _, pn := range s.order {
		acc := s.phases[pn]
		missing := absentFrom(withHandshakes, acc.seen)
		if len(missing) > 0 {
			*notes = append(*notes, fmt.Sprintf("%s%s phase left out: %s did not measure it", what, pn, shardWord(missing)))
			continue
		}
		h := &acc.hist
		switch {
		case acc.shared > 0 && acc.other == 0 && latency != nil:
			// The shards that repeated their latency histogram are in
			// latency, the others (without one) only in the phase.
			h = &histAcc{sum: new(stats.LatencySum), unknown: acc.hist.unknown}
			h.sum.Add(latency.sum)
			h.sum.Add(acc.hist.sum)
		case acc.shared > 0:
			*notes = append(*notes, fmt.Sprintf("%s%s phase left out: some shards' records repeat their latency histogram in it, others do not", what, pn))
			continue
		}
		if ok, note := h.known(what + pn + " phase"); !ok {
			*notes = append(*notes, note)
			continue
		}
		p, err := phaseOf(h.latency())
		if err != nil {
			return nil, err
		}
		out[pn] = p
	}
	return out, nil
}

// absentFrom returns the shards of want that are not in have.
func absentFrom(want, have []int) []int {
	set := make(map[int]bool, len(have))
	for _, s := range have {
		set[s] = true
	}
	var out []int
	for _, s := range want {
		if !set[s] {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// phaseOf summarises a merged phase as a single run's record does.
func phaseOf(l *stats.Latency) (results.Phase, error) {
	if l == nil || l.Count() == 0 {
		return results.Phase{}, nil
	}
	p := results.Phase{Count: l.Count()}
	p.P50US, p.P90US, p.P99US, p.P999US = l.PercentileUS(50), l.PercentileUS(90), l.PercentileUS(99), l.PercentileUS(99.9)
	p.MaxUS = l.MaxUS()
	enc, err := l.Encode()
	if err != nil {
		return p, err
	}
	p.Histogram = enc
	return p, nil
}
