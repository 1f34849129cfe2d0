package measure

import (
	"fmt"
	"math"
	"time"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/results"
)

// lateNote is how late a shard may begin a case (after its StartAt)
// before its record says so.
const lateNote = 100 * time.Millisecond

// ShareOf is index's share of total split over count parts: total/count,
// the remainder going one each to the lowest indices, so that the shares
// sum to total.
func ShareOf(total, index, count int) int {
	if count <= 1 {
		return total
	}
	n := total / count
	if index < total%count {
		n++
	}
	return n
}

// Sharded reports whether the case is one shard of several.
func (hc *HandshakeCase) Sharded() bool { return hc.Shards > 1 }

// shardWindow sets, in an open-loop shard given a Duration, the whole
// schedule's connections per window (all shards' together) and this
// shard's share of them.
func (hc *HandshakeCase) shardWindow() {
	whole := max(1, int(math.Round(hc.Rate*float64(hc.Shards)*hc.WindowLength().Seconds())))
	hc.WholeWindow = whole
	hc.Handshakes = max(1, ShareOf(whole, hc.Shard, hc.Shards))
}

// ValidateShard checks Shard and Shards.
func (hc *HandshakeCase) ValidateShard() error {
	switch {
	case hc.Shards < 0:
		return field.Errorf("Shards", hc.Shards, "must be 0 (not sharded) or more")
	case hc.Shards > 1 && (hc.Shard < 0 || hc.Shard >= hc.Shards):
		return field.Errorf("Shard", hc.Shard, "must be from 0 to %d", hc.Shards-1)
	case hc.Shards > 1 && hc.Rate > 0 && hc.Duration == 0:
		return field.Errorf("Shards", hc.Shards, "an open-loop shard needs %s, which fixes the windows all shards share", field.Ref("Duration"))
	case hc.Shards > 1 && hc.Rate > 0 && hc.Iterations > 0 &&
		math.Round(hc.Rate*float64(hc.Shards)*(hc.Duration/time.Duration(hc.Iterations)).Seconds()) < float64(hc.Shards):
		return field.Errorf("Rate", hc.Rate, "a window of the whole schedule would hold fewer connections than there are %s: some shard would start none; lengthen %s, lower %s or use fewer shards", field.Ref("Shards"), field.Ref("Duration"), field.Ref("Iterations"))
	}
	return nil
}

// shardFigures fills a shard's record: when its measured part ran, and
// how late it began the case.
func (r *Measurer) shardFigures(rec *results.Record, m *Measured) {
	hc := r.Case
	rec.CaseStarted, rec.CaseEnded, rec.StartLateUS = "", "", nil
	if hc.Shards < 1 {
		return
	}
	rec.CaseStarted = m.Began.UTC().Format(time.RFC3339Nano)
	rec.CaseEnded = m.Ended.UTC().Format(time.RFC3339Nano)
	if hc.StartAt.IsZero() {
		return
	}
	rec.StartLateUS = results.Float(float64(r.Late.Nanoseconds()) / 1e3)
	if r.Late > lateNote {
		rec.Notes = append(rec.Notes, fmt.Sprintf("began the case %v after its common start: the other shards measured without this one for that long",
			r.Late.Round(time.Millisecond)))
	}
}
