package loadgen

import (
	"context"
	"errors"

	"github.com/tlsbench/tlsbench/results"
)

// RunInterleaved measures one case on two or three sides in one run: the
// sides' iterations alternate in ABBA order (round r runs the sides in
// their order when r is even, in reverse when odd), so that drift during
// the run hits every side alike, and each round's values are a pair
// (samples_us[i] of every record was measured in round i).
//
// sides[0] is side a; sides[1] side b; sides[2], when given, a second
// instance of side a (the noise floor). Each HandshakeCase is complete on
// its own (dialer, clients, observers, gates, Record with Side and Versus
// set by the caller); Iterations, Warmup, MaxDuration and TargetError are
// taken from sides[0]. MaxDuration is per side: the rounds stop once the
// measured rounds took sides×MaxDuration. With TargetError set, rounds
// go on past Iterations until the 99.9% confidence interval of the ratio
// of side b to side a (stats.ComparePaired) is at most TargetError of it.
//
// Every side primes and warms up (its warm-up rounds interleaved too);
// a round counts only when every side's iteration in it succeeded, so
// that the records always hold the same number of paired samples. The
// records come back in the order of sides, with the errors of the sides
// joined (each wrapped with its side's name), as RunHandshakes returns
// them: a record may come with an error, and a side whose warm-up failed
// has no record.
func RunInterleaved(ctx context.Context, sides []HandshakeCase) ([]*results.Record, error) {
	return nil, errors.New("interleaved runs are not implemented")
}
