// Package stats holds the statistics of tlsbench: what a measured case's
// numbers mean, and how sure we are of them.
//
// A handshake case produces two kinds of data, and each gets the tool that
// suits it:
//
//   - Per-iteration values (wall time of one iteration / handshakes in it, in
//     microseconds) are few (tens) and, after warm-up, roughly independent.
//     [Summarize] reports them the way BenchmarkDotNet does: mean, Error,
//     stddev, median, min, max. Error is the half-width of the 99.9%
//     confidence interval of the mean from Student's t with N-1 degrees of
//     freedom. Student's t, not the normal distribution, because with 5-30
//     iterations the normal quantile understates the interval badly (3.29 vs
//     4.78 at N=10). 99.9%, not 95%, because a report shows many cases side by
//     side and a reader compares them by eye: at 95% one case in twenty would
//     show an interval that misses its true mean, which across a
//     concurrency x version x resume matrix is several misleading rows per
//     report. Matching BenchmarkDotNet also lets TLS-stack developers compare
//     our "Error" column with the one they already know. [StudentTQuantile]
//     is implemented here (incomplete beta function and a safeguarded Newton
//     search) because the standard library has no t distribution and the
//     value must be accurate for every N a run can produce.
//
//   - Individual handshake latencies are many (millions) and heavy-tailed:
//     the interesting part is p99 and p99.9, where queueing under concurrency
//     and retransmissions live. [Latency] keeps them in an HDR histogram
//     (1 µs .. 60 s, 3 significant digits): fixed memory (~140 KiB) whatever
//     the count, 0.1% relative precision at every magnitude, cheap to record
//     from many goroutines, and mergeable, so each load-generator worker can
//     keep its own and the case merges them. Its compressed V2 encoding is the
//     standard HdrHistogram interchange format, so the results file keeps the
//     whole distribution ([Latency.Encode]) and any report can recompute any
//     percentile later without rerunning the benchmark.
//
// [Compare] supports A/B comparison (tlsbench compare): the ratio of means
// with its first-order standard deviation, and a Mann-Whitney U test from
// golang.org/x/perf/benchmath, which makes no normality assumption (benchmark
// timings are often bimodal or skewed) and says when there are too few
// samples for any difference to be detectable, the same verdict benchstat
// gives.
//
// [ComparePaired] judges interleaved A/B runs, where the two sides were
// measured in alternating rounds: drift during the run hits both values of
// a round alike, so the per-round ratios cancel it. It reports the
// geometric mean ratio with its 99.9% interval (Student's t on the
// log-ratios) and the Wilcoxon signed-rank test of the log-ratios, exact
// for small samples.
//
// stats owns the arithmetic only. It imports nothing of tlsbench.
package stats
