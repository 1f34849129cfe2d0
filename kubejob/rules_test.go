package kubejob_test

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/tlsbench/tlsbench/kubejob"
)

// The API server's own validation of a Job lives in Kubernetes' main
// repository, which is far too large to import for a test. These are the
// rules its API reference documents for what kubejob sets, checked here.

// jobRules are the Job API's rules on the fields kubejob sets.
func jobRules(job *batchv1.Job) []string {
	var v []string
	bad := func(format string, args ...any) { v = append(v, fmt.Sprintf(format, args...)) }
	spec := job.Spec
	indexed := spec.CompletionMode != nil && *spec.CompletionMode == batchv1.IndexedCompletion
	rp := spec.Template.Spec.RestartPolicy
	if rp != corev1.RestartPolicyNever && rp != corev1.RestartPolicyOnFailure {
		bad("restartPolicy %q: a Job's pods allow only Never or OnFailure", rp)
	}
	if spec.BackoffLimitPerIndex != nil && (!indexed || rp != corev1.RestartPolicyNever) {
		bad("backoffLimitPerIndex needs completionMode Indexed and restartPolicy Never")
	}
	if spec.MaxFailedIndexes != nil && spec.BackoffLimitPerIndex == nil {
		bad("maxFailedIndexes without backoffLimitPerIndex")
	}
	if indexed && spec.Completions == nil {
		bad("completionMode Indexed without completions")
	}
	if indexed && (deref(spec.Completions) > 100_000 || deref(spec.Parallelism) > 100_000) {
		bad("Indexed with more than 10^5 completions or parallelism")
	}
	for name, p := range map[string]*int32{"completions": spec.Completions, "parallelism": spec.Parallelism,
		"backoffLimit": spec.BackoffLimit, "backoffLimitPerIndex": spec.BackoffLimitPerIndex, "ttlSecondsAfterFinished": spec.TTLSecondsAfterFinished} {
		if p != nil && *p < 0 {
			bad("%s %d is negative", name, *p)
		}
	}
	if d := spec.ActiveDeadlineSeconds; d != nil && *d <= 0 {
		bad("activeDeadlineSeconds %d must be positive", *d)
	}
	if spec.Selector != nil || spec.ManualSelector != nil {
		bad("selector set: the API server makes a Job's selector itself")
	}
	if errs := validation.IsDNS1123Subdomain(job.Name); len(errs) > 0 || len(job.Name) > validation.DNS1123LabelMaxLength {
		bad("Job name %q: %v (and at most 63 characters, a label value)", job.Name, errs)
	}
	if indexed && len(job.Name)+1+len(strconv.Itoa(int(deref(spec.Completions))-1)) > validation.DNS1123LabelMaxLength {
		bad("Job name %q too long for the pods' host names NAME-INDEX", job.Name)
	}
	for _, ls := range []map[string]string{job.Labels, spec.Template.Labels} {
		for k, val := range ls {
			if len(validation.IsQualifiedName(k)) > 0 || len(validation.IsValidLabelValue(val)) > 0 {
				bad("label %s=%s is not valid", k, val)
			}
		}
	}
	return append(v, podRules(spec.Template.Spec)...)
}

// podRules are the Pod API's rules on what kubejob sets.
func podRules(pod corev1.PodSpec) []string {
	var v []string
	bad := func(format string, args ...any) { v = append(v, fmt.Sprintf(format, args...)) }
	volumes := map[string]corev1.Volume{}
	for _, vol := range pod.Volumes {
		if len(validation.IsDNS1123Label(vol.Name)) > 0 || volumes[vol.Name].Name != "" {
			bad("volume name %q invalid or repeated", vol.Name)
		}
		volumes[vol.Name] = vol
		if s := vol.Secret; s != nil && (s.DefaultMode == nil || *s.DefaultMode < 0 || *s.DefaultMode > 0o777) {
			bad("secret volume %s: defaultMode %v out of 0..0777", vol.Name, s.DefaultMode)
		}
	}
	if len(pod.Containers) == 0 {
		bad("no containers")
	}
	for _, c := range pod.Containers {
		if len(validation.IsDNS1123Label(c.Name)) > 0 || c.Image == "" {
			bad("container %q: invalid name or no image", c.Name)
		}
		var paths []string
		for _, m := range c.VolumeMounts {
			if _, ok := volumes[m.Name]; !ok || !path.IsAbs(m.MountPath) || slices.Contains(paths, m.MountPath) {
				bad("mount %s at %s: unknown volume, relative or repeated path", m.Name, m.MountPath)
			}
			paths = append(paths, m.MountPath)
		}
		for r, req := range c.Resources.Requests {
			if lim, ok := c.Resources.Limits[r]; ok && req.Cmp(lim) > 0 {
				bad("container %s: %s request above its limit", c.Name, r)
			}
		}
	}
	if a := pod.Affinity; a != nil && a.PodAntiAffinity != nil {
		v = append(v, antiAffinityRules(a.PodAntiAffinity)...)
	}
	return append(v, restrictedRules(pod)...)
}

func antiAffinityRules(a *corev1.PodAntiAffinity) []string {
	var v []string
	terms := slices.Clone(a.RequiredDuringSchedulingIgnoredDuringExecution)
	for _, w := range a.PreferredDuringSchedulingIgnoredDuringExecution {
		if w.Weight < 1 || w.Weight > 100 {
			v = append(v, fmt.Sprintf("preferred term weight %d out of 1..100", w.Weight))
		}
		terms = append(terms, w.PodAffinityTerm)
	}
	for _, t := range terms {
		if _, err := metav1.LabelSelectorAsSelector(t.LabelSelector); err != nil || t.TopologyKey == "" {
			v = append(v, fmt.Sprintf("anti-affinity term: selector %v, topologyKey %q", err, t.TopologyKey))
		}
	}
	return v
}

// restrictedRules are the "restricted" Pod Security Standard's, which a
// namespace enforcing it holds every pod to.
func restrictedRules(pod corev1.PodSpec) []string {
	var v []string
	bad := func(format string, args ...any) { v = append(v, fmt.Sprintf(format, args...)) }
	if pod.HostNetwork || pod.HostPID || pod.HostIPC {
		bad("host namespaces shared")
	}
	for _, vol := range pod.Volumes {
		if vol.Secret == nil && vol.EmptyDir == nil && vol.ConfigMap == nil && vol.Projected == nil && vol.DownwardAPI == nil {
			bad("volume %s of a type the restricted standard refuses", vol.Name)
		}
	}
	psc := pod.SecurityContext
	if psc == nil {
		psc = &corev1.PodSecurityContext{}
	}
	for _, c := range pod.Containers {
		sc := c.SecurityContext
		if sc == nil {
			sc = &corev1.SecurityContext{}
		}
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || deref(sc.Privileged) {
			bad("container %s may escalate privileges", c.Name)
		}
		if sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") ||
			slices.ContainsFunc(sc.Capabilities.Add, func(c corev1.Capability) bool { return c != "NET_BIND_SERVICE" }) {
			bad("container %s keeps capabilities", c.Name)
		}
		if !deref(sc.RunAsNonRoot) && !deref(psc.RunAsNonRoot) {
			bad("container %s may run as root", c.Name)
		}
		if (sc.RunAsUser != nil && *sc.RunAsUser == 0) || (psc.RunAsUser != nil && *psc.RunAsUser == 0) {
			bad("container %s runs as user 0", c.Name)
		}
		seccomp := psc.SeccompProfile
		if sc.SeccompProfile != nil {
			seccomp = sc.SeccompProfile
		}
		if seccomp == nil || (seccomp.Type != corev1.SeccompProfileTypeRuntimeDefault && seccomp.Type != corev1.SeccompProfileTypeLocalhost) {
			bad("container %s has no RuntimeDefault or Localhost seccomp profile", c.Name)
		}
	}
	return v
}

// TestAPIRules: every Job built keeps the documented rules.
func TestAPIRules(t *testing.T) {
	t.Parallel()
	for name, s := range specs() {
		manifest, err := kubejob.Manifest(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, v := range jobRules(decodeStrict(t, manifest)) {
			t.Errorf("%s: %s", name, v)
		}
	}
}

// TestAPIRulesCatchBrokenJobs shows that the rules above can fail: each
// change breaks one.
func TestAPIRulesCatchBrokenJobs(t *testing.T) {
	t.Parallel()
	breaks := map[string]func(*batchv1.Job){
		"restart on failure": func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure },
		"not indexed":        func(j *batchv1.Job) { j.Spec.CompletionMode = ptr(batchv1.NonIndexedCompletion) },
		"no completions":     func(j *batchv1.Job) { j.Spec.Completions = nil },
		"zero deadline":      func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = ptr(int64(0)) },
		"long name":          func(j *batchv1.Job) { j.Name = strings.Repeat("a", 62) },
		"bad label":          func(j *batchv1.Job) { j.Spec.Template.Labels["x"] = "not a value" },
		"unknown mount":      func(j *batchv1.Job) { j.Spec.Template.Spec.Volumes = nil },
		"escalation": func(j *batchv1.Job) {
			j.Spec.Template.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = nil
		},
		"capabilities": func(j *batchv1.Job) { j.Spec.Template.Spec.Containers[0].SecurityContext.Capabilities = nil },
		"root": func(j *batchv1.Job) {
			j.Spec.Template.Spec.SecurityContext.RunAsNonRoot = nil
			j.Spec.Template.Spec.Containers[0].SecurityContext.RunAsNonRoot = nil
		},
		"unconfined": func(j *batchv1.Job) {
			j.Spec.Template.Spec.SecurityContext.SeccompProfile = nil
			j.Spec.Template.Spec.Containers[0].SecurityContext.SeccompProfile = nil
		},
		"weight": func(j *batchv1.Job) {
			term := j.Spec.Template.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
			j.Spec.Template.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 0, PodAffinityTerm: term}}}
		},
	}
	for name, brk := range breaks {
		manifest, err := kubejob.Manifest(baseSpec())
		if err != nil {
			t.Fatal(err)
		}
		job := decodeStrict(t, manifest)
		brk(job)
		if v := jobRules(job); len(v) == 0 {
			t.Errorf("%s: no rule broken", name)
		}
	}
}

func ptr[T any](v T) *T { return &v }
