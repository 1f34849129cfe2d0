// Package merge joins the records of a sharded run (tlsbench run
// --shard I/N: one run split over N load generators) into records of
// the whole run, of the same form as a single machine's: one record per
// case (per case and side), in the order the cases first appear, without
// shard, with shards = N and shard_runs listing every shard.
//
// What is merged, and how:
//
//   - Summed: handshakes, errors, errors_by_kind, resumed, late,
//     dropped, handshakes_per_sec, rate_target, rate_achieved, and the
//     shards' shares of the load: concurrency (unless every shard
//     recorded the run's own, which params.concurrency says), max_inflight,
//     client_identities, cpus_available. server_resumed and the proxy's
//     counts are summed when every shard has them, and null otherwise.
//     resumption_rate is recomputed; group and cipher list every value
//     with its handshakes when the shards' differ.
//   - Per handshake (client_cpu_us, server_cpu_us, process_cpu_us,
//     alloc_bytes, server_alloc_bytes, proxy_cpu_us): weighted by each
//     shard's handshakes; null when a shard lacks it.
//   - extra: client_cores_used, proxy_origin_handshakes and
//     proxy_origin_resumed are summed, keys ending in _per_handshake are
//     weighted by handshakes; any other key, or one a shard lacks, is
//     left out with a note (it cannot be merged exactly).
//   - Percentiles are never averaged: p50_us to p999_us, every phase (of
//     phases and of each part of a mix), service_p* and start_lateness_p*
//     are drawn from the merged HDR histograms, which are recorded too.
//     When a shard that recorded latencies lacks a phase, service or
//     start lateness histogram the others have, the figures drawn from
//     it are left out (absent) with a note, rather than wrong; a record
//     with handshakes and no latency histogram is refused, as p50_us to
//     p999_us cannot be absent.
//   - Samples are combined per window index, using sample_handshakes (n):
//     open loop, sample_i = Σ sample·n / Σ n (a mean latency over every
//     shard's successes); closed loop, sample_i = max(sample·n) / Σ n (the
//     shards' iterations ran at the same time, so the union's wall time
//     over all its handshakes). mean, error, stddev, median, min and max
//     are recomputed from them as a single run computes them. With
//     different numbers of samples the common prefix is combined, with a
//     note. The handshake figure (handshake_samples_us) is combined as the
//     closed-loop samples are, with the same n, when every shard has it.
//   - verdict is failed when any shard's is; notes are kept once each, as
//     they are when every shard wrote them and after the shards' indices
//     otherwise (a note many shards wrote each with its own figures once,
//     with the first one's); stopped_by is the worst shard's; machine_busy,
//     other_cpu_share, listen_overflows and listen_drops the worst shard's
//     (each the shard's machine's); duration_us the longest.
//   - env is the lowest shard's with host cleared (every shard's is in
//     shard_runs); case_started is the earliest, case_ended the latest,
//     start_late_us the largest; a note says when the shards began a
//     case more than 100 ms apart, or a shard more than 100 ms late,
//     and Merger.Warnings says it with the case's name.
//
// A merge refuses (an *Error naming the input, line and field) records
// that are not a shard's, records of different runs (start_at, naming
// both start times; run_plan, env.tlsbench_version, shards), what tlsbench never writes (over 10,000
// shards, over 32 phases, parts other than full and resumed), a shard's
// record of a case given twice, records without sample_handshakes
// (written by a tlsbench too old to merge), histograms that do not
// decode, a latency histogram absent from a record with handshakes or
// holding another number of latencies than its handshakes (a phase's
// histogram, than its count), and figures whose sum over the shards
// overflows (the input's doing, not the merge's). A case lacking some
// shards' records is refused (a *MissingError), unless
// Options.AllowMissing: then missing_shards lists them and a note says
// so; Merger.Coverage says which shards were merged.
//
// Records are folded into their case as they are added, so that a merge
// holds one set of histograms per case, not every shard's: its memory
// follows the histograms' size and the number of cases, not the number
// of handshakes or shards. Decoding the shards' histograms (and, with
// Merger.Read, their lines) is nearly all of a merge's work, so it is
// done a batch at a time on every CPU, the records still added in order.
package merge
