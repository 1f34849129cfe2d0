package report

import "github.com/tlsbench/tlsbench/results"

// Trim drops from rec what a report in format f never reads, so that a
// reader of a large results file holds a summary of each record rather
// than the record: the phases' histograms, the shards' runs, the
// handshakes of each sample, and the open-loop histograms of service time
// and lateness; for table and markdown also the latency histogram (but
// for the steps of a rate search, whose percentiles the table may read
// from it). The samples (samples_us, handshake_samples_us) go too, unless
// a comparison needs them: overlay is an HTML page of a baseline and a
// candidate, and the sides of an interleaved run are compared wherever
// they are shown. The formats that write each record as it comes (json,
// csv, benchfmt) hold none: they need no Trim, and json would lose what
// it drops. Trim changes rec's maps: rec is a record of its own, as
// results.DecodeEach gives each.
func Trim(rec *results.Record, f Format, overlay bool) {
	for name, p := range rec.Phases {
		p.Histogram = ""
		rec.Phases[name] = p
	}
	for name, part := range rec.Parts {
		for ph, p := range part.Phases {
			p.Histogram = ""
			part.Phases[ph] = p
		}
		rec.Parts[name] = part
	}
	rec.ShardRuns, rec.SampleHandshakes = nil, nil
	rec.ServiceHistogram, rec.StartLatenessHistogram = "", ""
	if (f == Table || f == Markdown) && !SearchRecord(rec) {
		rec.Histogram = ""
	}
	// A record without iterations is told from a case not run by its
	// samples (see notRun): a few values, kept.
	if !overlay && rec.Side == "" && rec.Iterations > 0 {
		rec.SamplesUS, rec.HandshakeSamplesUS = nil, nil
	}
}
