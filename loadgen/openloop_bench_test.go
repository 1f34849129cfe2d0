package loadgen_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"testing"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// BenchmarkOpenLoopLateness measures the generator's own timing: how late
// connections start against the schedule, at 1,000, 2,000 and 5,000
// handshakes per second against the built-in server in a child process
// over loopback. The handshakes are resumed TLS 1.2 ones, the cheapest
// there are, so that what is measured is the generator's timing as long
// as the machine keeps up (the machine_busy of the records says when it
// does not):
//
//	go test ./loadgen -run '^$' -bench OpenLoopLateness/r5000 -benchtime 5x -count 3
//
// Each round is one case: a warm-up window and 2 measured windows of a
// second each. Metrics: start-lateness-p50-us and start-lateness-p99-us
// (the worst of the rounds), late and dropped (summed: starts that
// waited for the in-flight cap, which a server that keeps up never
// makes), the starts per second achieved (the lowest), and the client's
// CPU per handshake (the highest), pacing included.
func BenchmarkOpenLoopLateness(b *testing.B) {
	addr, roots := startChildServer(b)
	for _, rate := range []int{1000, 2000, 5000} {
		b.Run(fmt.Sprintf("r%d", rate), func(b *testing.B) {
			cfg := tlsconf.Client(tlsconf.ClientOptions{Version: tls.VersionTLS12, RootCAs: roots, ServerName: "localhost",
				Sessions: tlsconf.NewSessionPool(measure.OpenLoopSessions(0), tlsconf.ReuseMulti).Scoped("")})
			hc := measure.HandshakeCase{
				Name: fmt.Sprintf("handshake/tls1.2/resume/r%d", rate), Version: tls.VersionTLS12, Resume: true,
				Rate: float64(rate), Handshakes: rate, Iterations: 2, Warmup: 1, MaxErrorRate: 1,
				Clients: []*tls.Config{cfg}, Dialer: client.TCPDialer{Addr: addr},
			}
			benchLateness(b, hc)
		})
	}
}

func benchLateness(b *testing.B, hc measure.HandshakeCase) {
	var p50, p99, late, dropped, cpu, busy float64
	achieved := -1.0
	for b.Loop() {
		rec, err := loadgen.RunHandshakes(context.Background(), hc)
		if rec == nil {
			b.Fatal(err)
		}
		if err != nil {
			b.Logf("the case did not hold its schedule: %v", err)
		}
		p50 = max(p50, *rec.StartLatenessP50US)
		p99 = max(p99, *rec.StartLatenessP99US)
		late += float64(*rec.Late)
		dropped += float64(*rec.Dropped)
		if rec.ClientCPUUS != nil {
			cpu = max(cpu, *rec.ClientCPUUS)
		}
		if rec.MachineBusy != nil {
			busy = max(busy, *rec.MachineBusy)
		}
		if achieved < 0 || *rec.RateAchieved < achieved {
			achieved = *rec.RateAchieved
		}
	}
	b.ReportMetric(p50, "start-lateness-p50-us")
	b.ReportMetric(p99, "start-lateness-p99-us")
	b.ReportMetric(late, "late")
	b.ReportMetric(dropped, "dropped")
	b.ReportMetric(achieved, "starts/s")
	b.ReportMetric(cpu, "client-cpu-us/hs")
	b.ReportMetric(busy, "machine-busy")
}
