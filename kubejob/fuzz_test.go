package kubejob_test

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/tlsbench/tlsbench/kubejob"
)

// FuzzRunArgs: whatever the run's arguments, New refuses them or builds a
// Job whose manifest carries them to the pod unchanged (YAML quoting
// included: "yes", "null", "0x10", "- x" and the like must stay strings).
func FuzzRunArgs(f *testing.F) {
	for _, seed := range []string{
		"--tls\n1.3", "--out\n-", "--shards=2", "yes\nno\nnull\n~\n0x10\n1e3", "- x\n: y\n#z\n'q'\n\"w\"",
		"--ca\n/etc/tlsbench/ca.pem", "--\n--out\nx", "\n\t\n", "ü\x00\u2028",
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, joined string, secret bool) {
		s := baseSpec()
		s.RunArgs = append([]string{"--target", "h:443", "--duration", "10s"}, strings.Split(joined, "\n")...)
		if secret {
			s.Secret = "pki"
		}
		manifest, err := kubejob.Manifest(s)
		if err != nil {
			return
		}
		var job batchv1.Job
		if err := yaml.UnmarshalStrict(manifest, &job); err != nil {
			t.Fatalf("manifest does not decode: %v\n%s", err, manifest)
		}
		args := job.Spec.Template.Spec.Containers[0].Args
		want := append([]string{"run"}, s.RunArgs...)
		if len(args) != len(want)+6 || !slices.Equal(args[:len(want)], want) {
			t.Fatalf("args %q, want them to begin %q", args, want)
		}
		if n := slices.Index(args, "--out"); n != len(args)-2 {
			t.Fatalf("--out at %d in %q: the run's own was accepted", n, args)
		}
	})
}
