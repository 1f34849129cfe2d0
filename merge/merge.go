package merge

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/tlsbench/tlsbench/results"
)

// Options change what a merge accepts.
type Options struct {
	// AllowMissing merges the records present when some shards' records
	// of a case are missing; each merged record lists them in
	// MissingShards and says so in a note.
	AllowMissing bool
}

// Source is the records of one input, in its order, and its name for
// messages.
type Source struct {
	Name    string
	Records []results.Record
}

// Merge merges the records of sources, the shards of one run, into one
// record per case: see the package documentation.
func Merge(opts Options, sources ...Source) ([]results.Record, error) {
	m := New(opts)
	for _, s := range sources {
		for i := range s.Records {
			if err := m.Add(Pos{Source: s.Name, Record: i + 1}, &s.Records[i]); err != nil {
				return nil, err
			}
		}
	}
	return m.Records()
}

// Merger merges records fed to it one at a time: each record's figures
// are folded into its case's as it is added (its histograms into the
// case's merged ones), so that a merge holds one set of histograms per
// case whatever the number of shards. Records returns the result.
type Merger struct {
	opts    Options
	run     *runID
	cases   map[caseKey]*caseState
	order   []*caseState
	allSeen map[int]bool // shards with any record
	folder  *folder
	skipped []Skipped
	// warnings are the remarks on when the shards ran each case,
	// gathered by Records.
	warnings []string
}

// Skipped counts the lines of one input that were not records and were
// passed over: what shards print besides their records (progress,
// tables, messages), which kubectl logs delivers with them.
type Skipped struct {
	Source string
	Lines  int
}

// Skipped lists, per input, the lines Read passed over.
func (m *Merger) Skipped() []Skipped { return m.skipped }

// runID is what every record of one run shares, and where it was first
// read.
type runID struct {
	pos     Pos
	shards  int
	plan    string
	version string
	startAt string
}

type caseKey struct{ name, side string }

// New returns an empty Merger.
func New(opts Options) *Merger {
	return &Merger{opts: opts, cases: map[caseKey]*caseState{}, allSeen: map[int]bool{}, folder: newFolder()}
}

// Add folds one shard's record into its case. It returns an *Error
// when the record cannot be merged with those added before. Histograms
// are folded in batches, on every CPU: one that does not decode is
// reported by a later Add, or by Records, naming its own record. After
// an error the Merger is of no further use.
func (m *Merger) Add(pos Pos, rec *results.Record) error {
	if err := m.checkRun(pos, rec); err != nil {
		return err
	}
	key := caseKey{rec.Name, rec.Side}
	c := m.cases[key]
	if c == nil {
		c = newCase(rec)
		m.cases[key] = c
		m.order = append(m.order, c)
	}
	if prev, dup := c.shards[*rec.Shard]; dup {
		return &Error{Pos: pos, Case: rec.Name, Field: "shard", Reason: fmt.Sprintf("shard %d's record of this case was already read at %s; give each shard's results once", *rec.Shard, prev)}
	}
	if err := c.add(m.folder, pos, rec); err != nil {
		return err
	}
	m.allSeen[*rec.Shard] = true
	if m.folder.full() {
		return m.folder.flush()
	}
	return nil
}

// checkRun refuses a record that is not a shard's, or of another run
// than the records before it.
func (m *Merger) checkRun(pos Pos, rec *results.Record) error {
	refuse := func(field, format string, args ...any) error {
		return &Error{Pos: pos, Case: rec.Name, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case rec.Shard == nil || rec.Shards == 0:
		if len(rec.ShardRuns) > 0 {
			return refuse("shard", "the record is already merged (it lists shard_runs); merge the shards' own results")
		}
		return refuse("shard", "the record is not of a sharded run (no shard and shards); only the results of one run's shards are merged")
	case rec.Shards < 1 || rec.Shards > maxShards:
		return refuse("shards", "%d: a run is split into 1 to %d shards", rec.Shards, maxShards)
	case *rec.Shard < 0 || *rec.Shard >= rec.Shards:
		return refuse("shard", "shard %d of %d: a shard's index is from 0 to shards-1", *rec.Shard, rec.Shards)
	case rec.Kind != results.KindHandshake && rec.Kind != results.KindRateStep:
		return refuse("kind", "%q: only handshake cases are measured in sharded runs", rec.Kind)
	}
	if m.run == nil {
		m.run = &runID{pos: pos, shards: rec.Shards, plan: rec.RunPlan, version: rec.Env.TLSBenchVersion, startAt: rec.StartAt}
		return nil
	}
	first := m.run
	switch {
	case rec.StartAt != first.startAt && rec.StartAt != "" && first.startAt != "":
		// Their run_plan differs too (it digests the start), but the
		// times say what to fix.
		return refuse("start_at", "%s, but %s has %s: the shards were given different start times (--start-at), so they did not run the cases at the same time; run every shard with one --start-at", rec.StartAt, first.pos, first.startAt)
	case rec.RunPlan != first.plan:
		return refuse("run_plan", "%q, but %s has %q: the records are of different runs; merge the shards of one run", rec.RunPlan, first.pos, first.plan)
	case rec.Env.TLSBenchVersion != first.version:
		return refuse("env.tlsbench_version", "%q, but %s has %q: shards of one run are measured by one tlsbench version", rec.Env.TLSBenchVersion, first.pos, first.version)
	case rec.Shards != first.shards:
		return refuse("shards", "%d, but %s has %d: the records are of different runs", rec.Shards, first.pos, first.shards)
	}
	return nil
}

// maxShards is the most shards a run may be split into (tlsbench run
// refuses more): a record claiming more was not written by it, and the
// merge would list that many missing shards.
const maxShards = 10_000

// Read adds every record of a JSON lines stream (a results file, or
// several shards' files concatenated) as it reads it, a batch of lines
// at a time (decoded on every CPU, added in order), so that the stream
// is never held whole. src names it in errors. Lines that are not JSON
// objects are passed over and counted (Skipped): the shards' own output
// besides their records, as a pod's log holds it. A JSON line that is
// not a record is an *Error naming the line.
func (m *Merger) Read(src string, r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	b := &lineBatch{lanes: m.folder.lanes}
	n, skipped := 0, 0
	defer func() {
		if skipped > 0 {
			m.skipped = append(m.skipped, Skipped{Source: src, Lines: skipped})
		}
	}()
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		switch {
		case len(line) == 0:
		case line[0] != '{':
			// Not a JSON object, so not a record, nor a piece of one:
			// a log line. A line that starts as one and is not a
			// record is refused, as a record cut short or corrupted.
			skipped++
		default:
			b.push(n, line)
		}
		if b.full() {
			if err := b.addTo(m, src); err != nil {
				return err
			}
		}
	}
	if err := b.addTo(m, src); err != nil {
		return err
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &Error{Pos: Pos{Source: src, Line: n + 1}, Reason: fmt.Sprintf("not a tlsbench result: the line is longer than %d MiB", maxLine>>20)}
		}
		return fmt.Errorf("%s: %w", src, err)
	}
	return nil
}

// lineBatch is lines read and not yet added: decoding a record (parsing
// its JSON, checking it) costs as much as merging it, so a batch is
// decoded in parallel.
type lineBatch struct {
	lanes int
	nums  []int
	lines [][]byte
	recs  []results.Record
	errs  []error
}

// lineBatchSize is how many lines a batch holds: a few MiB of records.
const lineBatchSize = 256

func (b *lineBatch) push(num int, line []byte) {
	b.nums = append(b.nums, num)
	b.lines = append(b.lines, bytes.Clone(line))
}

func (b *lineBatch) full() bool { return len(b.lines) >= lineBatchSize }

// addTo decodes the batch and adds its records to m in order, stopping
// at the first line that is not a record or cannot be merged.
func (b *lineBatch) addTo(m *Merger, src string) error {
	defer func() {
		clear(b.lines)
		clear(b.recs)
		b.nums, b.lines, b.recs, b.errs = b.nums[:0], b.lines[:0], b.recs[:0], b.errs[:0]
	}()
	b.recs = slices.Grow(b.recs[:0], len(b.lines))[:len(b.lines)]
	b.errs = slices.Grow(b.errs[:0], len(b.lines))[:len(b.lines)]
	var wg sync.WaitGroup
	for lane := range b.lanes {
		wg.Go(func() {
			for i := lane; i < len(b.lines); i += b.lanes {
				b.recs[i], b.errs[i] = results.DecodeLine(b.lines[i])
			}
		})
	}
	wg.Wait()
	for i := range b.lines {
		pos := Pos{Source: src, Line: b.nums[i]}
		if b.errs[i] != nil {
			return decodeError(pos, b.errs[i])
		}
		if err := m.Add(pos, &b.recs[i]); err != nil {
			return err
		}
	}
	return nil
}

// maxLine is the longest line Read takes, as the results reader does.
const maxLine = 64 << 20

// decodeError turns the results reader's error for a line (": reason"
// or " (case): reason") into an *Error at the line's place.
func decodeError(pos Pos, err error) error {
	msg := err.Error()
	e := &Error{Pos: pos}
	if rest, ok := strings.CutPrefix(msg, " ("); ok {
		if name, reason, ok := strings.Cut(rest, "): "); ok {
			e.Case, msg = name, ": "+reason
		}
	}
	e.Reason = strings.TrimPrefix(msg, ": ")
	return e
}

// Records returns the merged records, one per case in the order the
// cases were first added. It returns a *MissingError when a case lacks
// a shard's record (unless Options.AllowMissing), and an error when a
// merged record contradicts itself, which records of one run cannot
// give.
func (m *Merger) Records() ([]results.Record, error) {
	if m.run == nil {
		return nil, nil
	}
	if err := m.folder.flush(); err != nil {
		return nil, err
	}
	if !m.opts.AllowMissing {
		if err := m.checkMissing(); err != nil {
			return nil, err
		}
	}
	out := make([]results.Record, 0, len(m.order))
	m.warnings = nil
	for _, c := range m.order {
		rec, err := c.finish(m.run.shards)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
		label := c.key.name
		if c.key.side != "" {
			label += " [" + c.key.side + "]"
		}
		for _, n := range c.timing.notes() {
			m.warnings = append(m.warnings, label+": "+n)
		}
	}
	return out, nil
}

// Warnings says, one remark a line with its case, what Records found in
// the shards' timing that the merged figures cannot show: shards that
// began a case more than 100 ms apart, or late after its common start
// (the merged records' notes say it too). A caller shows them where they
// are read, not only in the records.
func (m *Merger) Warnings() []string { return m.warnings }

// Coverage is which of a run's shards a merge had records of.
type Coverage struct {
	Shards  int   // the run's number of shards
	Merged  int   // shards with a record of some case
	Missing []int // shards without any record
	Partial []int // shards merged, but without a record of some case
}

// Coverage says which shards the records added came from; the zero
// Coverage when none was added.
func (m *Merger) Coverage() Coverage {
	if m.run == nil {
		return Coverage{}
	}
	c := Coverage{Shards: m.run.shards, Merged: len(m.allSeen)}
	partial := map[int]bool{}
	for i := range m.run.shards {
		if !m.allSeen[i] {
			c.Missing = append(c.Missing, i)
		}
	}
	for _, cs := range m.order {
		for _, s := range cs.missing(m.run.shards) {
			if m.allSeen[s] {
				partial[s] = true
			}
		}
	}
	c.Partial = slices.Sorted(maps.Keys(partial))
	return c
}

// String says it as a merge's message does: "2 shards", or "1 of 2
// shards (shard 1 missing)".
func (c Coverage) String() string {
	if len(c.Missing) == 0 && len(c.Partial) == 0 {
		if c.Shards == 1 {
			return "1 shard"
		}
		return fmt.Sprintf("%d shards", c.Shards)
	}
	var gaps []string
	if len(c.Missing) > 0 {
		gaps = append(gaps, shardWord(c.Missing)+" missing")
	}
	if len(c.Partial) > 0 {
		gaps = append(gaps, shardWord(c.Partial)+" missing from some cases")
	}
	return fmt.Sprintf("%d of %d shards (%s)", c.Merged, c.Shards, strings.Join(gaps, "; "))
}

// Complete reports whether every shard has a record of every case.
func (c Coverage) Complete() bool { return len(c.Missing) == 0 && len(c.Partial) == 0 }

// checkMissing finds the first case without every shard's record.
func (m *Merger) checkMissing() error {
	var nowhere []int
	for i := range m.run.shards {
		if !m.allSeen[i] {
			nowhere = append(nowhere, i)
		}
	}
	if len(nowhere) > 0 {
		return &MissingError{Case: m.order[0].key.name, Missing: nowhere, Shards: m.run.shards, Everywhere: true}
	}
	for _, c := range m.order {
		if miss := c.missing(m.run.shards); len(miss) > 0 {
			return &MissingError{Case: c.key.name, Missing: miss, Shards: m.run.shards}
		}
	}
	return nil
}
