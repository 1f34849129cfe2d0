package cli_test

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"

	"github.com/tlsbench/tlsbench/internal/cli"
)

// TestKubernetesJobStartTime: the manifest on stdout is a Job alone (it
// decodes strictly), and its shards start --start-in after it was
// printed, on a whole second.
func TestKubernetesJobStartTime(t *testing.T) {
	t.Parallel()
	for _, startIn := range []time.Duration{30 * time.Second, 90*time.Second + 300*time.Millisecond} {
		var stdout, stderr bytes.Buffer
		before := time.Now()
		err := cli.Run(context.Background(), []string{"kubernetes", "job", "--shards", "5", "--image", "reg/tlsbench:1",
			"--start-in", startIn.String(), "--", "run", "--target", "h:443", "--concurrency", "10", "--duration", "10s"}, &stdout, &stderr)
		after := time.Now()
		if err != nil {
			t.Fatalf("--start-in %s: %v", startIn, err)
		}
		var job batchv1.Job
		if err := yaml.UnmarshalStrict(stdout.Bytes(), &job); err != nil {
			t.Fatalf("stdout does not decode strictly into a Job: %v\n%s", err, stdout.Bytes())
		}
		args := job.Spec.Template.Spec.Containers[0].Args
		i := slices.Index(args, "--start-at")
		if i < 0 || i+1 >= len(args) {
			t.Fatalf("args %q have no --start-at", args)
		}
		at, err := time.Parse(time.RFC3339, args[i+1])
		if err != nil {
			t.Fatalf("--start-at %q: %v", args[i+1], err)
		}
		earliest, latest := before.Add(startIn), after.Add(startIn).Add(time.Second)
		// Rounded up, never down: a shard never starts earlier than asked.
		if at.Before(earliest) || at.After(latest) || at.Nanosecond() != 0 {
			t.Errorf("--start-in %s: start at %s, want a whole second in [%s, %s]", startIn, at, earliest, latest)
		}
	}
}
