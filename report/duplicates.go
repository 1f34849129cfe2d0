package report

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tlsbench/tlsbench/results"
)

// A Duplicate is a record given more than once: the same case of the same
// run, as when a results file is concatenated with itself. Records of one
// name are pooled as independent runs (their samples joined), so copies of
// one run would narrow the error by the square root of their number and
// call changes that are noise. Two records are the same when they name
// the same case (name, side and shard, as a merge tells shards apart) of
// the same run (env.started, env.host, run_plan) with the same samples;
// a record without env.started is the same as another only byte for byte.
type Duplicate struct {
	Case    string // the case's name, with its side
	Times   int    // how many times it is given
	Started string // the run's env.started; "" when not recorded
}

func (d Duplicate) String() string {
	s := fmt.Sprintf("%s (%d times", d.Case, d.Times)
	if d.Started != "" {
		s += ", of the run started " + d.Started
	}
	return s + ")"
}

// Duplicates returns the records recs hold more than once, in the order
// of their first appearance.
func Duplicates(recs []results.Record) []Duplicate {
	count := map[string]int{}
	var order []string
	first := map[string]*results.Record{}
	for i := range recs {
		k := identity(&recs[i])
		if count[k] == 0 {
			order = append(order, k)
			first[k] = &recs[i]
		}
		count[k]++
	}
	var out []Duplicate
	for _, k := range order {
		if n := count[k]; n > 1 {
			r := first[k]
			out = append(out, Duplicate{Case: caseLabel(r), Times: n, Started: r.Env.Started})
		}
	}
	return out
}

// identity is what makes two records the same measurement (see
// Duplicate).
func identity(r *results.Record) string {
	if r.Env.Started == "" {
		b, _ := json.Marshal(r)
		return "record " + string(b)
	}
	shard := -1
	if r.Shard != nil {
		shard = *r.Shard
	}
	b, _ := json.Marshal(struct {
		Name, Side, Started, Host, Plan string
		Shard                           int
		Samples                         []float64
		MBps                            *float64
	}{r.Name, r.Side, r.Env.Started, r.Env.Host, r.RunPlan, shard, r.SamplesUS, r.MBps})
	return "run " + string(b)
}

// DuplicatesText lists duplicates in one line: "a (3 times, of the run
// started T), b (2 times)", the first few of many and how many more.
func DuplicatesText(ds []Duplicate) string {
	const shown = 3
	var parts []string
	for i, d := range ds {
		if i == shown {
			parts = append(parts, fmt.Sprintf("and %d more", len(ds)-shown))
			break
		}
		parts = append(parts, d.String())
	}
	return strings.Join(parts, ", ")
}
