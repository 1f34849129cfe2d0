package merge

import (
	"fmt"
	"maps"
	"slices"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// histAcc is one merged histogram of a case: the shards' histograms
// folded into it as they are read, and the shards that should have had
// one and did not (their latencies are unknown, so no percentile of the
// whole may be drawn without them).
type histAcc struct {
	lat     *stats.Latency // nil until a shard brings a histogram
	unknown []int
}

// add folds one shard's encoded histogram: enc is empty when the shard
// has none, and needed says whether it should have had one (it recorded
// latencies).
func (h *histAcc) add(enc string, needed bool, shard int) error {
	if enc == "" {
		if needed {
			h.unknown = append(h.unknown, shard)
		}
		return nil
	}
	if h.lat == nil {
		h.lat = stats.NewLatency()
	}
	return h.lat.AddEncoded(enc)
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

// encode encodes the merged histogram; "" with no histogram.
func (h *histAcc) encode() (string, error) {
	if h.lat == nil {
		return "", nil
	}
	return h.lat.Encode()
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
	hist histAcc
	seen []int // shards whose record has the phase
}

// add folds one shard's phases; prefix names the phases' field in
// errors.
func (s *phaseSet) add(pos Pos, name string, phases map[string]results.Phase, shard int, prefix string) error {
	if s.phases == nil {
		s.phases = map[string]*phaseAcc{}
	}
	for _, pn := range slices.Sorted(maps.Keys(phases)) {
		p := phases[pn]
		acc := s.phases[pn]
		if acc == nil {
			acc = &phaseAcc{}
			s.phases[pn] = acc
			s.order = append(s.order, pn)
		}
		acc.seen = append(acc.seen, shard)
		if err := acc.hist.add(p.Histogram, p.Count > 0, shard); err != nil {
			return &Error{Pos: pos, Case: name, Field: prefix + pn + ".histogram", Reason: fmt.Sprintf("does not decode: %v; was the line edited?", err)}
		}
	}
	return nil
}

// finish returns the merged phases, leaving out (with a note) any phase
// a shard that made handshakes did not measure. withHandshakes are those
// shards.
func (s *phaseSet) finish(withHandshakes []int, what string, notes *[]string) (map[string]results.Phase, error) {
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
		if ok, note := acc.hist.known(what + pn + " phase"); !ok {
			*notes = append(*notes, note)
			continue
		}
		p, err := phaseOf(acc.hist.lat)
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
