package kubejob_test

import (
	"bytes"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/tlsbench/tlsbench/kubejob"
)

var startAt = time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)

func baseSpec() kubejob.Spec {
	return kubejob.Spec{
		Image:   "registry.example.com/tlsbench:1.0",
		Shards:  4,
		StartAt: startAt,
		RunArgs: []string{"--target", "server.example.com:443", "--tls", "1.3", "--duration", "30s"},
	}
}

// specs are the Jobs the tests build: every option on and off.
func specs() map[string]kubejob.Spec {
	one := baseSpec()
	one.Shards = 1
	full := baseSpec()
	full.Name, full.Namespace, full.Shards = "bench-7", "load", 16
	full.CPUs, full.Memory, full.Secret = 4, "2Gi", "tlsbench-pki"
	full.Spread, full.Deadline, full.TTL = kubejob.SpreadPreferred, 90*time.Minute, 24*time.Hour
	full.RunArgs = append(full.RunArgs, "--ca=/etc/tlsbench/ca.pem", "--mutual",
		"--client-cert", "/etc/tlsbench/client.pem", "--client-key", "/etc/tlsbench/client-key.pem")
	most := baseSpec()
	most.Shards = kubejob.MaxShards
	return map[string]kubejob.Spec{"defaults": baseSpec(), "one shard": one, "every option": full, "most shards": most}
}

// decodeStrict decodes a manifest as the API server would refuse it:
// an unknown or misspelt field is an error, not silently dropped.
func decodeStrict(t *testing.T, manifest []byte) *batchv1.Job {
	t.Helper()
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(manifest, &job); err != nil {
		t.Fatalf("the manifest does not decode strictly into a batch/v1 Job: %v\n%s", err, manifest)
	}
	return &job
}

// TestManifestRoundTrips: the YAML decodes strictly into the typed Job it
// was made from (the API's types, built as the package built them before
// it had its own), and the API machinery encodes that Job back to the
// same bytes.
func TestManifestRoundTrips(t *testing.T) {
	t.Parallel()
	for name, s := range specs() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, err := kubejob.APIJob(s)
			if err != nil {
				t.Fatal(err)
			}
			manifest, err := kubejob.Manifest(s)
			if err != nil {
				t.Fatal(err)
			}
			got := decodeStrict(t, manifest)
			if !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("decoded Job differs from the one built:\n%s", manifest)
			}
			again, err := yaml.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, manifest) {
				t.Errorf("encoding the decoded Job again gives other bytes:\n%s\nwant\n%s", again, manifest)
			}
			if got.APIVersion != "batch/v1" || got.Kind != "Job" {
				t.Errorf("apiVersion %q, kind %q; want batch/v1 Job", got.APIVersion, got.Kind)
			}
		})
	}
}

// TestStrictDecodingRefusesUnknownFields shows the round trip above can
// fail: a field the API does not have is refused.
func TestStrictDecodingRefusesUnknownFields(t *testing.T) {
	t.Parallel()
	manifest, err := kubejob.Manifest(baseSpec())
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(manifest, []byte("completionMode:"), []byte("completionsMode:"), 1)
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(bad, &job); err == nil {
		t.Fatal("a misspelt field decoded without error")
	}
}

// TestJobFields checks what the Job is for: N indexed shards, none run
// again, spread over nodes, each with whole CPUs of its own, starting at
// the common time and writing to its log.
func TestJobFields(t *testing.T) {
	t.Parallel()
	for name, s := range specs() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			manifest, err := kubejob.Manifest(s)
			if err != nil {
				t.Fatal(err)
			}
			job := decodeStrict(t, manifest)
			checkCounts(t, job, s.Shards)
			checkSpread(t, job, s)
			checkResources(t, job, s)
			checkArgs(t, job, s)
			checkSecurity(t, job)
			checkVolumes(t, job, s.Secret)
			checkTimes(t, job, s)
		})
	}
}

func checkCounts(t *testing.T, job *batchv1.Job, shards int) {
	t.Helper()
	spec := job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %q, want Indexed", deref(spec.CompletionMode))
	}
	if v := deref(spec.Completions); v != int32(shards) {
		t.Errorf("completions %d, want %d", v, shards)
	}
	if v := deref(spec.Parallelism); v != int32(shards) {
		t.Errorf("parallelism %d, want %d", v, shards)
	}
	if spec.BackoffLimitPerIndex == nil || *spec.BackoffLimitPerIndex != 0 {
		t.Errorf("backoffLimitPerIndex %d (set: %t), want 0", deref(spec.BackoffLimitPerIndex), spec.BackoffLimitPerIndex != nil)
	}
	// Without maxFailedIndexes, a failed shard leaves the others running
	// to their end, so that the merge still has them.
	if spec.MaxFailedIndexes != nil {
		t.Errorf("maxFailedIndexes %d: a failed shard would stop the others", *spec.MaxFailedIndexes)
	}
	if rp := spec.Template.Spec.RestartPolicy; rp != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q, want Never", rp)
	}
}

func checkSpread(t *testing.T, job *batchv1.Job, s kubejob.Spec) {
	t.Helper()
	aff := job.Spec.Template.Spec.Affinity
	if aff == nil || aff.PodAntiAffinity == nil {
		t.Fatal("no pod anti-affinity")
	}
	var terms []corev1.PodAffinityTerm
	required := aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	preferred := aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	if s.Spread == kubejob.SpreadPreferred {
		if len(required) != 0 || len(preferred) != 1 || preferred[0].Weight < 1 || preferred[0].Weight > 100 {
			t.Fatalf("preferred spread: required %v, preferred %v", required, preferred)
		}
		terms = append(terms, preferred[0].PodAffinityTerm)
	} else {
		if len(required) != 1 || len(preferred) != 0 {
			t.Fatalf("required spread: required %v, preferred %v", required, preferred)
		}
		terms = required
	}
	term := terms[0]
	if term.TopologyKey != corev1.LabelHostname {
		t.Errorf("topologyKey %q, want %q (one shard a node)", term.TopologyKey, corev1.LabelHostname)
	}
	sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
	if err != nil {
		t.Fatal(err)
	}
	podLabels := job.Spec.Template.Labels
	if !sel.Matches(labels.Set(podLabels)) {
		t.Errorf("anti-affinity selector %s does not match the pods' labels %v: the shards would not repel each other", sel, podLabels)
	}
	other := maps.Clone(podLabels)
	other[kubejob.LabelInstance] = "another-run"
	if sel.Matches(labels.Set(other)) {
		t.Errorf("anti-affinity selector %s matches another Job's pods %v", sel, other)
	}
}

func checkResources(t *testing.T, job *batchv1.Job, s kubejob.Spec) {
	t.Helper()
	cpus, mem := s.CPUs, s.Memory
	if cpus == 0 {
		cpus = kubejob.DefaultCPUs
	}
	if mem == "" {
		mem = kubejob.DefaultMemory
	}
	for _, c := range job.Spec.Template.Spec.Containers {
		req, lim := c.Resources.Requests, c.Resources.Limits
		// Guaranteed QoS: every container has CPU and memory limits, and
		// requests equal to them.
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			l, ok := lim[r]
			if q := req[r]; !ok || q.Cmp(l) != 0 {
				t.Errorf("container %s: %s request %s, limit %s: want them equal (Guaranteed)", c.Name, r, q.String(), l.String())
			}
		}
		if q := req[corev1.ResourceCPU]; q.MilliValue() != int64(cpus)*1000 {
			t.Errorf("container %s: CPU %s, want %d whole CPUs", c.Name, q.String(), cpus)
		}
		if q, want := req[corev1.ResourceMemory], mustQuantity(t, mem); q.Cmp(want) != 0 {
			t.Errorf("container %s: memory %s, want %s", c.Name, q.String(), mem)
		}
	}
}

func checkArgs(t *testing.T, job *batchv1.Job, s kubejob.Spec) {
	t.Helper()
	cs := job.Spec.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("%d containers, want 1", len(cs))
	}
	args := cs[0].Args
	want := append(append([]string{"run"}, s.RunArgs...), "--shards", strconv.Itoa(s.Shards))
	if len(args) < len(want) || !slices.Equal(args[:len(want)], want) {
		t.Fatalf("args %q, want them to begin %q", args, want)
	}
	rest := args[len(want):]
	if len(rest) != 4 || rest[0] != "--start-at" || rest[2] != "--out" || rest[3] != "-" {
		t.Fatalf("args end %q, want --start-at TIME --out -", rest)
	}
	at, err := time.Parse(time.RFC3339, rest[1])
	if err != nil || !at.Equal(s.StartAt) {
		t.Errorf("--start-at %q (%v), want %s", rest[1], err, s.StartAt.Format(time.RFC3339))
	}
	if len(cs[0].Command) != 0 {
		t.Errorf("command %q: the image's entrypoint (tlsbench) should run", cs[0].Command)
	}
}

func checkSecurity(t *testing.T, job *batchv1.Job) {
	t.Helper()
	pod := job.Spec.Template.Spec
	psc := pod.SecurityContext
	if psc == nil || !deref(psc.RunAsNonRoot) || deref(psc.RunAsUser) == 0 {
		t.Errorf("pod security context %+v: want non-root with a numeric user", psc)
	}
	if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod seccomp profile: want RuntimeDefault")
	}
	if deref(pod.AutomountServiceAccountToken) {
		t.Error("the service account token is mounted: the shards never talk to the API server")
	}
	for _, c := range pod.Containers {
		sc := c.SecurityContext
		if sc == nil {
			t.Fatalf("container %s has no security context", c.Name)
		}
		if !deref(sc.RunAsNonRoot) || !deref(sc.ReadOnlyRootFilesystem) || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			t.Errorf("container %s: runAsNonRoot %v, readOnlyRootFilesystem %v, allowPrivilegeEscalation %v",
				c.Name, sc.RunAsNonRoot, sc.ReadOnlyRootFilesystem, sc.AllowPrivilegeEscalation)
		}
		if sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 {
			t.Errorf("container %s capabilities %+v, want drop ALL", c.Name, sc.Capabilities)
		}
		if deref(sc.Privileged) {
			t.Errorf("container %s is privileged", c.Name)
		}
	}
}

func checkVolumes(t *testing.T, job *batchv1.Job, secret string) {
	t.Helper()
	pod := job.Spec.Template.Spec
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range pod.Containers[0].VolumeMounts {
		mounts[m.MountPath] = m
	}
	// A run makes a scratch directory; the root file system is read-only.
	if _, ok := mounts["/tmp"]; !ok {
		t.Error("no writable /tmp")
	}
	m, ok := mounts[kubejob.SecretPath]
	if secret == "" {
		if ok {
			t.Errorf("a volume at %s without a Secret", kubejob.SecretPath)
		}
		return
	}
	if !ok || !m.ReadOnly {
		t.Fatalf("Secret mount at %s: %+v, want read-only", kubejob.SecretPath, m)
	}
	for _, v := range pod.Volumes {
		if v.Name == m.Name {
			if v.Secret == nil || v.Secret.SecretName != secret {
				t.Errorf("volume %s: %+v, want Secret %s", v.Name, v.VolumeSource, secret)
			}
			if mode := deref(v.Secret.DefaultMode); mode&0o007 != 0 {
				t.Errorf("Secret files mode %o: readable by others", mode)
			}
		}
	}
}

func checkTimes(t *testing.T, job *batchv1.Job, s kubejob.Spec) {
	t.Helper()
	deadline := s.Deadline
	if deadline == 0 {
		deadline = kubejob.DefaultDeadline
	}
	if got := deref(job.Spec.ActiveDeadlineSeconds); got != int64(deadline/time.Second) {
		t.Errorf("activeDeadlineSeconds %d, want %d", got, int64(deadline/time.Second))
	}
	ttl := job.Spec.TTLSecondsAfterFinished
	switch {
	case s.TTL == 0 && ttl != nil:
		t.Errorf("ttlSecondsAfterFinished %d without a TTL: the logs would go with the Job", *ttl)
	case s.TTL > 0 && deref(ttl) != int32(s.TTL/time.Second):
		t.Errorf("ttlSecondsAfterFinished %v, want %d", ttl, int32(s.TTL/time.Second))
	}
}

func mustQuantity(t *testing.T, s string) resource.Quantity {
	t.Helper()
	q, err := resource.ParseQuantity(s)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
