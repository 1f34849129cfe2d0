package kubejob_test

import (
	"fmt"
	"time"

	"github.com/tlsbench/tlsbench/kubejob"
)

func ExampleNew() {
	job, err := kubejob.New(kubejob.Spec{
		Image:   "registry.example.com/tlsbench:1.0",
		Shards:  4,
		StartAt: time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC),
		RunArgs: []string{"--target", "server.example.com:443", "--tls", "1.3", "--duration", "30s"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := job.Spec.Template.Spec.Containers[0]
	fmt.Println(job.Spec.CompletionMode, job.Spec.Completions, job.Spec.BackoffLimitPerIndex)
	fmt.Println(c.Args)
	fmt.Println(c.Resources.Limits["cpu"], c.Resources.Limits["memory"])
	// Output:
	// Indexed 4 0
	// [run --target server.example.com:443 --tls 1.3 --duration 30s --shards 4 --start-at 2026-12-01T06:00:00Z --out -]
	// 1 512Mi
}

func ExampleSpec_errors() {
	_, err := kubejob.New(kubejob.Spec{
		Image: "tlsbench", Shards: 2, StartAt: time.Now(),
		RunArgs: []string{"--target", "h:443", "--duration", "30s", "--out", "r.jsonl"},
	})
	fmt.Println(err)
	// Output:
	// RunArgs --out: the Job sets it: each shard writes its records to its log; leave it out of the run's arguments
}
