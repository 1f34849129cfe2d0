package reportcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/merge"
	"github.com/tlsbench/tlsbench/results"
)

const mergeUsage = `Usage: tlsbench merge [flags] FILE|- ...

Joins the results of a sharded run (tlsbench run --shard I/N or --shards N:
one run split over several load generators) into the results of the whole
run, in the form one machine's run writes them, so that report and compare
read them as any other results file. Give every shard's results file, or
all of them concatenated on standard input (-), as kubectl logs collects
them from the shards' pods. Lines that are not JSON (a shard's messages,
which a pod's log holds beside its records) are passed over and counted.

Per case: counts, errors and rates are summed; CPU and allocations per
handshake are weighted by each shard's handshakes; every percentile (of
the latency, of each phase, of the service time and start lateness) is
drawn from the shards' HDR histograms merged, never averaged; the
per-iteration samples are combined per iteration (window) index, so that
the mean and its error keep their meaning. shard_runs lists every shard
with its machine and environment.

The shards must be of one run (the same start time, run_plan, tlsbench
version and number of shards), each given once. A shard missing from a case is refused
unless --allow-missing is given; the merged records then list the missing
shards, and the merge says on stderr how many shards it merged and which
are missing. Shards that began a case more than 100 ms apart, or more than
100 ms after its common start, get a note and a warning on stderr.
A record that cannot be merged (counts that do not fit its latency
histogram, or whose sum over the shards overflows) is refused, naming its
file, line and field.

Examples:
  tlsbench merge shard-0.jsonl shard-1.jsonl shard-2.jsonl -o run.jsonl
  kubectl logs -l job-name=tlsbench --prefix=false --tail=-1 | tlsbench merge - -o run.jsonl
  tlsbench merge shard-*.jsonl | tlsbench report -

Flags:
`

// Merge is tlsbench merge: the shards' results as those of the whole run.
func Merge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := command.NewUsageFlagSet("merge", mergeUsage, stdout)
	out := fs.String("o", "", "write the merged results to `FILE` instead of standard output (replaced whole when the merge succeeds)")
	fs.StringVar(out, "out", "", "the same as -o `FILE`")
	allowMissing := fs.Bool("allow-missing", false, "merge when some shards' results are missing, listing them in the merged records, instead of refusing")
	files, err := fs.ParseWithArgs(args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return command.Usagef("no results file given; usage: tlsbench merge [flags] FILE|- ... (see 'tlsbench merge --help')")
	}
	if err := checkMergeInputs(*out, files); err != nil {
		return err
	}
	var o *command.OutFile
	if *out != "" && *out != "-" {
		if o, err = command.CreateOutFile(*out); err != nil {
			return command.Usagef("-o: %v", err)
		}
		defer o.Abandon()
	}
	recs, m, err := mergeFiles(files, merge.Options{AllowMissing: *allowMissing})
	if err != nil {
		return err
	}
	skipped, cov := m.Skipped(), m.Coverage()
	for _, s := range skipped {
		fmt.Fprintf(stderr, "tlsbench: %s: passed over %s other than records (the shards' messages, as their logs hold them)\n",
			s.Source, plural(s.Lines, "line"))
	}
	for _, w := range m.Warnings() {
		fmt.Fprintf(stderr, "tlsbench: WARNING: %s\n", w)
	}
	if o == nil {
		for i := range recs {
			line, err := results.Marshal(&recs[i])
			if err != nil {
				return err
			}
			if _, err := stdout.Write(line); err != nil {
				return err
			}
		}
		if !cov.Complete() {
			// Only --allow-missing gets here: say what the records lack.
			fmt.Fprintf(stderr, "tlsbench: merged %s from %s; the merged records list the missing shards (missing_shards)\n", plural(len(recs), "case"), cov)
		}
		return nil
	}
	if err := writeMerged(o, recs); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "tlsbench: merged %s from %s into %s\n", plural(len(recs), "case"), cov, *out)
	return nil
}

// checkMergeInputs refuses standard input given twice and an output
// that is one of the inputs.
func checkMergeInputs(out string, files []string) error {
	stdin := 0
	for _, f := range files {
		if f == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return command.Usagef("standard input (-) is given %d times; give it once", stdin)
	}
	if out == "" || out == "-" {
		return nil
	}
	for _, in := range files {
		if in != "-" && (command.SameFile(out, in) || samePath(out, in)) {
			return command.Usagef("-o %s is the results file %s: merging would overwrite it; write the merged results elsewhere", out, in)
		}
	}
	return nil
}

// mergeFiles merges the records of files ("-": standard input), each
// read line by line; the Merger says what it passed over and which shards
// it had.
func mergeFiles(files []string, opts merge.Options) ([]results.Record, *merge.Merger, error) {
	m := merge.New(opts)
	for _, name := range files {
		if err := mergeFile(m, name); err != nil {
			return nil, nil, err
		}
	}
	recs, err := m.Records()
	var me *merge.MissingError
	switch {
	case errors.As(err, &me):
		return nil, nil, command.Usagef("%s", strings.Replace(me.Error(), "or allow missing shards", "or give --allow-missing", 1))
	case err != nil:
		// A merged record that contradicts itself comes of records that
		// do not belong together.
		return nil, nil, command.Usagef("%v", err)
	case len(recs) == 0:
		return nil, nil, command.Usagef("no results in %s; give the results files of a sharded run's shards (tlsbench run --shard I/N --out FILE)", strings.Join(displayNames(files), ", "))
	}
	return recs, m, nil
}

func mergeFile(m *merge.Merger, name string) error {
	var r io.Reader = os.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				return command.Usagef("results file %s: %v", name, pe.Err)
			}
			return command.Usagef("results file %s: %v", name, err)
		}
		defer f.Close()
		r = f
	}
	err := m.Read(displayName(name), r)
	var me *merge.Error
	if errors.As(err, &me) {
		return command.Usagef("%s", me.Error())
	}
	if err != nil {
		return command.Usagef("results file %v", err)
	}
	return nil
}

func displayNames(files []string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = displayName(f)
	}
	return out
}

// writeMerged writes the merged records to o and puts the file in place
// of FILE; on a failure FILE stays as it was.
func writeMerged(o *command.OutFile, recs []results.Record) error {
	for i := range recs {
		o.Write(&recs[i])
	}
	if err := o.Commit(); err != nil {
		return fmt.Errorf("-o %s: %v; %s", o.Path(), command.Cause(err), o.Unchanged())
	}
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
