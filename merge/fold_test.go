package merge_test

import (
	"reflect"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// foldedByMerge are the numeric record fields that the merge combines
// by its own rules (counts every record has, the summary of the merged
// samples, percentiles drawn from merged histograms, the shard fields)
// rather than by a fold tag.
var foldedByMerge = map[string]bool{
	"Concurrency": true, "ClientIdentities": true, "Handshakes": true, "Errors": true, "Resumed": true,
	"ResumptionRate": true, "Iterations": true, "MeanUS": true, "ErrorUS": true, "StddevUS": true, "MedianUS": true,
	"MinUS": true, "MaxUS": true, "P50US": true, "P90US": true, "P99US": true, "P999US": true, "HandshakesPerSec": true,
	"HandshakeMeanUS": true, "HandshakeErrorUS": true, "HandshakeStddevUS": true, "HandshakeMedianUS": true,
	"HandshakeMinUS": true, "HandshakeMaxUS": true, "BufferBytes": true, "MBps": true, "ClientCPUPct": true,
	"ServerCPUPct": true, "CPUsAvailable": true, "TargetError": true, "MaxInflight": true, "StartLatenessP50US": true,
	"StartLatenessP99US": true, "ServiceP50US": true, "ServiceP90US": true, "ServiceP99US": true, "ServiceP999US": true,
	"RateSustained": true, "RateFailed": true, "Steps": true, "ResumeRatio": true, "Shard": true, "Shards": true,
	"StartLateUS": true,
}

// TestEveryFigureFolds: a numeric field added to the record either says
// how shards fold it (a fold tag: sum, max or per-handshake) or is one
// the merge combines itself; one that does neither would be merged as the
// first shard's value.
func TestEveryFigureFolds(t *testing.T) {
	t.Parallel()
	rt := reflect.TypeFor[results.Record]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		k := f.Type.Kind()
		if k == reflect.Pointer {
			k = f.Type.Elem().Kind()
		}
		numeric := k == reflect.Int || k == reflect.Int64 || k == reflect.Float64
		if _, tagged := f.Tag.Lookup("fold"); numeric && !tagged && !foldedByMerge[f.Name] {
			t.Errorf("Record.%s: give it a fold tag (sum, max or per-handshake) so that tlsbench merge combines the shards' values", f.Name)
		}
	}
}
