package merge

import "fmt"

// sampleAcc combines the shards' per-window samples. The shards'
// windows (open loop) or iterations (closed loop) of one index ran at
// the same time, so sample i of the union is:
//
//   - open loop, a mean latency of the window's successes: the mean over
//     every shard's successes, Σ sample·n / Σ n;
//   - closed loop, wall time per handshake: the union's wall time (the
//     longest shard's, max sample·n) over every shard's handshakes, Σ n.
type sampleAcc struct {
	open bool
	// field names the samples in a refusal: samples_us, or
	// handshake_samples_us (the handshake figure, combined alike).
	field   string
	num     []float64 // Σ sample·n, or max sample·n
	den     []int64   // Σ n
	minLen  int
	maxLen  int
	records int
}

func (a *sampleAcc) add(ad *adder, samples []float64, n []int64) {
	if a.records == 0 || len(samples) < a.minLen {
		a.minLen = len(samples)
	}
	a.maxLen = max(a.maxLen, len(samples))
	a.records++
	for len(a.num) < len(samples) {
		a.num = append(a.num, 0)
		a.den = append(a.den, 0)
	}
	for i, s := range samples {
		if n[i] == 0 {
			continue // no handshake: no time per handshake to weigh
		}
		v := s * float64(n[i])
		if overflows(0, v, v) {
			ad.refuse(fmt.Sprintf("%s[%d]", a.fieldName(), i), "%v µs per handshake over the %d handshakes of sample_handshakes[%d] is beyond the largest time: no iteration takes that long; was the line edited?", s, n[i], i)
			return
		}
		if a.open {
			a.num[i] = addAt(ad, a.fieldName(), i, a.num[i], v)
		} else {
			a.num[i] = max(a.num[i], v)
		}
		a.den[i] = addAt(ad, "sample_handshakes", i, a.den[i], n[i])
	}
}

func (a *sampleAcc) fieldName() string {
	if a.field == "" {
		return "samples_us"
	}
	return a.field
}

// finish returns the combined samples and the handshakes behind each:
// the windows every shard measured, up to the first without any
// handshake, with a note when that left some out.
func (a *sampleAcc) finish(notes *[]string) ([]float64, []int64) {
	n := a.minLen
	for i := 0; i < n; i++ {
		if a.den[i] == 0 {
			*notes = append(*notes, fmt.Sprintf("samples end at window %d of %d: no shard made a handshake in it", i, n))
			n = i
			break
		}
	}
	if a.maxLen != a.minLen {
		*notes = append(*notes, fmt.Sprintf("the shards measured %d to %d iterations; the samples combine the first %d, which every shard measured", a.minLen, a.maxLen, a.minLen))
	}
	samples := make([]float64, n)
	for i := range samples {
		samples[i] = a.num[i] / float64(a.den[i])
	}
	return samples, append([]int64(nil), a.den[:n]...)
}
