package report

import (
	"crypto/sha256"
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
	var f DuplicateFinder
	for i := range recs {
		f.Add(&recs[i])
	}
	return f.Duplicates()
}

// A DuplicateFinder finds the duplicates among records added one at a
// time, keeping a digest of each record's identity, not the record: a
// reader of a large file looks for them before it drops the samples. The
// zero value is ready to use.
type DuplicateFinder struct {
	count map[[sha256.Size]byte]int
	order [][sha256.Size]byte
	first map[[sha256.Size]byte]Duplicate
}

// Add counts rec.
func (f *DuplicateFinder) Add(rec *results.Record) {
	if f.count == nil {
		f.count, f.first = map[[sha256.Size]byte]int{}, map[[sha256.Size]byte]Duplicate{}
	}
	k := sha256.Sum256([]byte(identity(rec)))
	if f.count[k] == 0 {
		f.order = append(f.order, k)
		f.first[k] = Duplicate{Case: CaseLabel(rec), Started: rec.Env.Started}
	}
	f.count[k]++
}

// Duplicates returns the records added more than once, in the order of
// their first appearance.
func (f *DuplicateFinder) Duplicates() []Duplicate {
	var out []Duplicate
	for _, k := range f.order {
		if n := f.count[k]; n > 1 {
			d := f.first[k]
			d.Times = n
			out = append(out, d)
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
