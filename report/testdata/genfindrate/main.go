// Command genfindrate writes testdata/findrate.jsonl: open-loop cases and
// two searches for a sustainable rate, with histograms drawn from a
// seeded model of a server that queues past its capacity. Run from
// report/: go run ./testdata/genfindrate > testdata/findrate.jsonl
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"time"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

var env = results.Env{TLSBenchVersion: "0.1.0-dev", GoVersion: "go1.26.0", GOOS: "linux", GOARCH: "amd64",
	GOMAXPROCS: 2, NumCPU: 2, CPUModel: "AMD EPYC 7B13", Kernel: "6.1.0-28-cloud-amd64", Started: "2026-11-30T23:00:00Z"}

type stepSpec struct {
	rate     float64
	capacity float64 // the server's capacity: latency grows as rate nears it
	base     float64 // service time, µs
	errs     int64
	achieved float64 // share of the target achieved
	late     int64
	dropped  int64
}

func main() {
	enc := json.NewEncoder(os.Stdout)
	emit := func(r results.Record) {
		if err := enc.Encode(r); err != nil {
			panic(err)
		}
	}
	// Two plain open-loop cases (--rate 1000,2000).
	for _, rate := range []float64{1000, 2000} {
		emit(step("handshake/tls1.3/full", false, stepSpec{rate: rate, capacity: 3800, base: 650, achieved: 0.9998, late: int64(rate / 1000)}, ""))
	}
	// A full-handshake search that narrowed its bracket.
	const full = "handshake/tls1.3/full/find-rate"
	slo := "p99=20ms,error=0.1%"
	var steps []results.Record
	for _, s := range []stepSpec{
		{rate: 500, capacity: 3800, base: 650, achieved: 1},
		{rate: 1000, capacity: 3800, base: 650, achieved: 1},
		{rate: 2000, capacity: 3800, base: 650, achieved: 0.9999, late: 2},
		{rate: 4000, capacity: 3800, base: 650, achieved: 0.9931, late: 2911, errs: 21},
		{rate: 3000, capacity: 3800, base: 650, achieved: 0.9996, late: 95},
		{rate: 3500, capacity: 3800, base: 650, achieved: 0.9962, late: 1730, errs: 3},
		{rate: 3250, capacity: 3800, base: 650, achieved: 0.9991, late: 310},
		{rate: 3375, capacity: 3800, base: 650, achieved: 0.9974, late: 806, errs: 1},
	} {
		steps = append(steps, step(full, false, s, slo))
	}
	for _, r := range steps {
		emit(r)
	}
	emit(search(full, false, slo, 3250, 3375, "", len(steps)))
	// A resumed search that ended at the generator's own limit.
	const res = "handshake/tls1.3/resume/find-rate"
	slo = "p99.9=10ms,error=0.1%"
	for _, s := range []stepSpec{
		{rate: 1000, capacity: 14000, base: 210, achieved: 1},
		{rate: 2000, capacity: 14000, base: 210, achieved: 1},
		{rate: 4000, capacity: 14000, base: 210, achieved: 0.9997, late: 4},
		{rate: 8000, capacity: 14000, base: 210, achieved: 0.912, late: 12},
	} {
		emit(step(res, true, s, slo))
	}
	emit(search(res, true, slo, 4000, 0, "the load generator could not hold 8000/s: its CPU was saturated", 4))
}

// latencies draws n latencies (µs) of a queue at utilisation rate/capacity.
func latencies(rng *rand.Rand, n int, s stepSpec) []float64 {
	rho := s.rate / s.capacity
	out := make([]float64, n)
	for i := range out {
		service := s.base * math.Exp(rng.NormFloat64()*0.25)
		var wait float64
		if rho < 1 {
			wait = rng.ExpFloat64() * s.base * rho / (1 - rho)
		} else {
			// Past capacity the queue grows through the window.
			wait = float64(i) / float64(n) * (rho - 1) * 2000000 * rng.Float64()
		}
		out[i] = service + wait
	}
	return out
}

func step(prefix string, resume bool, s stepSpec, slo string) results.Record {
	rng := rand.New(rand.NewSource(int64(s.rate) + 7))
	const windows = 5
	const windowSec = 0.4
	scheduled := int(s.rate * windowSec * windows)
	lat := latencies(rng, scheduled-int(s.errs)-int(s.dropped), s)
	h := stats.NewLatency()
	svc := stats.NewLatency()
	var samples []float64
	per := len(lat) / windows
	for w := 0; w < windows; w++ {
		sum := 0.0
		for _, v := range lat[w*per : (w+1)*per] {
			sum += v
			h.Record(time.Duration(v * 1000))
			svc.Record(time.Duration(math.Min(v, s.base*3*math.Exp(rng.NormFloat64()*0.2)) * 1000))
		}
		samples = append(samples, math.Round(sum/float64(per)*10)/10)
	}
	hist, err := h.Encode()
	if err != nil {
		panic(err)
	}
	mean, sd, lo, hi, med := summary(samples)
	rateStr := fmt.Sprintf("%g", s.rate)
	tag := "full"
	if resume {
		tag = "resume"
	}
	r := results.Record{
		Name: prefix + "/r" + rateStr, Kind: results.KindHandshake, TLSVersion: "1.3", Resume: resume,
		KeyType: "ecdsa-p256", Group: "X25519MLKEM768", Transport: "tcp",
		Params:     map[string]string{"tls_version": "1.3", "resume": map[bool]string{true: "on", false: "off"}[resume], "rate": rateStr, "arrival": "constant", "transport": "tcp", "key_type": "ecdsa-p256"},
		Handshakes: int64(len(lat)), Errors: s.errs, Iterations: windows,
		MeanUS: mean, ErrorUS: results.Float(math.Round(sd*3.0*100) / 100), StddevUS: sd, MedianUS: med, MinUS: lo, MaxUS: hi,
		P50US: h.PercentileUS(50), P90US: h.PercentileUS(90), P99US: h.PercentileUS(99), P999US: h.PercentileUS(99.9),
		HandshakesPerSec: math.Round(float64(len(lat))/(windowSec*windows)*10) / 10,
		ClientCPUUS:      results.Float(map[bool]float64{true: 96.5, false: 318.2}[resume]),
		ServerCPUUS:      results.Float(map[bool]float64{true: 70.1, false: 244.9}[resume]),
		AllocBytes:       map[bool]float64{true: 21610, false: 38290}[resume],
		SamplesUS:        samples, Histogram: hist,
		Arrival: results.ArrivalConstant, RateTarget: results.Float(s.rate), RateAchieved: results.Float(math.Round(s.rate*s.achieved*10) / 10),
		MaxInflight: 4096, Late: results.Int(s.late), Dropped: results.Int(s.dropped),
		StartLatenessP50US: results.Float(11), StartLatenessP99US: results.Float(math.Round(38 + s.rate/200)),
		ServiceP50US: results.Float(svc.PercentileUS(50)), ServiceP90US: results.Float(svc.PercentileUS(90)),
		ServiceP99US: results.Float(svc.PercentileUS(99)), ServiceP999US: results.Float(svc.PercentileUS(99.9)),
		DurationUS: results.Float(windowSec * windows * 1e6),
		Env:        env,
	}
	_ = tag
	if resume {
		r.Resumed = r.Handshakes
		r.ResumptionRate = 1
		r.ServerResumed = results.Int(r.Handshakes)
		r.SessionStore = "tickets"
	} else {
		r.ServerResumed = results.Int(0)
		r.SessionStore = "tickets"
	}
	if s.errs > 0 {
		r.ErrorsByKind = map[string]int64{"timeout": s.errs}
	}
	if slo == "" {
		// Plain open-loop cases record their phases; total is the
		// latency from the intended start, the others from the dial.
		n := r.Handshakes
		r.Phases = map[string]results.Phase{
			results.PhaseConnect:   {Count: n, P50US: 48, P90US: 71, P99US: 140, P999US: 260, MaxUS: 410},
			results.PhaseHandshake: {Count: n, P50US: 590, P90US: 820, P99US: 1410, P999US: 2050, MaxUS: 2600},
			results.PhaseFirstByte: {Count: n, P50US: 41, P90US: 66, P99US: 120, P999US: 210, MaxUS: 330},
			results.PhaseTotal: {Count: n, P50US: r.P50US, P90US: r.P90US, P99US: r.P99US, P999US: r.P999US,
				MaxUS: h.MaxUS(), Histogram: hist},
		}
		return r
	}
	r.Kind = results.KindRateStep
	r.SLO = slo
	met := meets(h, slo, s, len(lat))
	r.SLOMet = results.Bool(met)
	if s.achieved < 0.99 {
		r.Verdict = "failed"
		r.Notes = []string{fmt.Sprintf("started %g/s, %.1f%% of the %g/s asked for: the client's CPU was saturated", *r.RateAchieved, s.achieved*100, s.rate)}
	}
	return r
}

// meets judges the step as the search does: the goal's percentile and
// error share, and the schedule held.
func meets(h *stats.Latency, slo string, s stepSpec, ok int) bool {
	var p, ms, e float64
	if _, err := fmt.Sscanf(slo, "p%g=%gms,error=%g%%", &p, &ms, &e); err != nil {
		panic(err)
	}
	errShare := float64(s.errs) / float64(int64(ok)+s.errs)
	return h.PercentileUS(p) <= ms*1000 && errShare <= e/100 && s.achieved >= 0.99
}

func summary(xs []float64) (mean, sd, lo, hi, med float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		mean += x
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	sd = math.Round(math.Sqrt(sd/float64(len(xs)-1))*1000) / 1000
	s := append([]float64(nil), xs...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return math.Round(mean*100) / 100, sd, lo, hi, s[len(s)/2]
}

func search(name string, resume bool, slo string, sustained, failed float64, limit string, steps int) results.Record {
	r := results.Record{
		Name: name, Kind: results.KindRateSearch, TLSVersion: "1.3", Resume: resume, KeyType: "ecdsa-p256", Transport: "tcp",
		Params: map[string]string{"tls_version": "1.3", "resume": map[bool]string{true: "on", false: "off"}[resume], "arrival": "constant", "transport": "tcp", "key_type": "ecdsa-p256"},
		SLO:    slo, SearchLimit: limit, Steps: steps, Arrival: results.ArrivalConstant, MaxInflight: 4096, Env: env,
	}
	if sustained > 0 {
		r.RateSustained = results.Float(sustained)
	}
	if failed > 0 {
		r.RateFailed = results.Float(failed)
	}
	return r
}
