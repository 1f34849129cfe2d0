package runner_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"testing"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// BenchmarkThroughput is user-space bulk throughput on this machine, one
// connection downloading from the built-in server in a child process,
// through the same runner as tlsbench run --mode throughput --ktls off:
//
//	go test ./runner -run '^$' -bench Throughput -benchtime 10x
//
// One op is one iteration of 16 MiB. MB/s is the case's rate (total bytes
// over total measured time), client-cpu-% and server-cpu-% the share of
// one CPU each process used, cpu-s/GB both together per 10^9 bytes. TLS
// 1.3 AES-256-GCM is skipped: two Go endpoints cannot negotiate it.
func BenchmarkThroughput(b *testing.B) {
	const perIter = 16 << 20
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		for _, c := range []string{ktls.CipherAES128GCM, ktls.CipherAES256GCM, ktls.CipherChaCha20Poly1305} {
			for _, buf := range []int{4 << 10, 16 << 10, 64 << 10} {
				p := runner.ThroughputPlan{
					Versions: []uint16{v}, Ciphers: []string{c}, Buffers: []int{buf},
					KTLS: []ktls.Mode{ktls.ModeOff}, Directions: []string{loadgen.DirectionDownload},
					Concurrency: []int{1}, Bytes: perIter, Warmup: 1,
					ChildEnv: []string{testchild.Env()},
				}
				name := fmt.Sprintf("tls%s/%s/%dk", tls.VersionName(v)[4:], c, buf>>10)
				b.Run(name, func(b *testing.B) {
					if why := p.Cases()[0].NotRunnable; why != "" {
						b.Skip(why)
					}
					p.Iterations = b.N
					var rec *results.Record
					err := p.Run(context.Background(), func(r *results.Record) error {
						rec = r
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(rec.MeanUS*perIter/1e6*1e3, "ns/op")
					b.ReportMetric(*rec.MBps, "MB/s")
					if rec.ClientCPUPct != nil && rec.ServerCPUPct != nil {
						b.ReportMetric(*rec.ClientCPUPct, "client-cpu-%")
						b.ReportMetric(*rec.ServerCPUPct, "server-cpu-%")
						b.ReportMetric((*rec.ClientCPUPct+*rec.ServerCPUPct)/100/(*rec.MBps/1000), "cpu-s/GB")
					}
				})
			}
		}
	}
}
