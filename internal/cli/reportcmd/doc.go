// Package reportcmd is the commands that read results files: tlsbench
// report (a file in a format), compare (a candidate against a baseline,
// case by case) and merge (the shards of a sharded run as one run). run
// uses their parts too: the record streams of its output (NewStream) and
// the comparison of --baseline and of interleaved runs (CompareFlags).
package reportcmd
