package kubejob

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// APIJob builds the Job for s from the API's own types, as this package
// did before it had types of its own (the code is that of then, moved
// here): the tests hold the manifest to it, byte for byte, through the
// API machinery's encoder.
func APIJob(s Spec) (*batchv1.Job, error) {
	s = s.withDefaults()
	if _, err := s.validate(); err != nil {
		return nil, err
	}
	mem, err := resource.ParseQuantity(s.Memory)
	if err != nil {
		return nil, err
	}
	labels := map[string]string{LabelName: "tlsbench", LabelInstance: s.Name}
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			CompletionMode:        ptr(batchv1.IndexedCompletion),
			Completions:           ptr(int32(s.Shards)),
			Parallelism:           ptr(int32(s.Shards)),
			BackoffLimitPerIndex:  ptr(int32(0)),
			ActiveDeadlineSeconds: ptr(seconds(s.Deadline)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       apiPodSpec(s, labels, mem),
			},
		},
	}
	if s.TTL > 0 {
		job.Spec.TTLSecondsAfterFinished = ptr(int32(seconds(s.TTL)))
	}
	return job, nil
}

func apiPodSpec(s Spec, labels map[string]string, mem resource.Quantity) corev1.PodSpec {
	cpu := *resource.NewQuantity(int64(s.CPUs), resource.DecimalSI)
	res := corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem}
	c := corev1.Container{
		Name:            containerName,
		Image:           s.Image,
		Args:            s.Args(),
		Resources:       corev1.ResourceRequirements{Requests: res, Limits: res.DeepCopy()},
		SecurityContext: apiContainerSecurity(),
		VolumeMounts:    []corev1.VolumeMount{{Name: tmpVolume, MountPath: "/tmp"}},
	}
	spec := corev1.PodSpec{
		RestartPolicy:                corev1.RestartPolicyNever,
		AutomountServiceAccountToken: ptr(false),
		EnableServiceLinks:           ptr(false),
		SecurityContext:              apiPodSecurity(),
		Affinity:                     &corev1.Affinity{PodAntiAffinity: apiAntiAffinity(s.Spread, labels)},
		Containers:                   []corev1.Container{c},
		Volumes: []corev1.Volume{{Name: tmpVolume, VolumeSource: corev1.VolumeSource{
			EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr(resource.MustParse(tmpSize))},
		}}},
	}
	if s.Secret != "" {
		spec.Volumes = append(spec.Volumes, corev1.Volume{Name: secretVolume, VolumeSource: corev1.VolumeSource{
			Secret: &corev1.SecretVolumeSource{SecretName: s.Secret, DefaultMode: ptr(int32(0o440))},
		}})
		spec.Containers[0].VolumeMounts = append(spec.Containers[0].VolumeMounts,
			corev1.VolumeMount{Name: secretVolume, MountPath: SecretPath, ReadOnly: true})
	}
	return spec
}

func apiAntiAffinity(spread Spread, labels map[string]string) *corev1.PodAntiAffinity {
	term := corev1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: labels},
		TopologyKey:   corev1.LabelHostname,
	}
	if spread == SpreadPreferred {
		return &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{
			{Weight: 100, PodAffinityTerm: term},
		}}
	}
	return &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}}
}

func apiPodSecurity() *corev1.PodSecurityContext {
	return &corev1.PodSecurityContext{
		RunAsNonRoot:   ptr(true),
		RunAsUser:      ptr(int64(UID)),
		RunAsGroup:     ptr(int64(UID)),
		FSGroup:        ptr(int64(UID)),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

func apiContainerSecurity() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		RunAsNonRoot:             ptr(true),
		AllowPrivilegeEscalation: ptr(false),
		ReadOnlyRootFilesystem:   ptr(true),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

func ptr[T any](v T) *T { return &v }

// The package's YAML writer and quantity parser, for the tests that hold
// them to the API machinery's.
var (
	ParseQuantity = func(s string) (string, bool) {
		q, ok := parseQuantity(s)
		if !ok {
			return "", false
		}
		return q.String(), true
	}
	CmpQuantity = func(a, b string) int {
		qa, _ := parseQuantity(a)
		qb, _ := parseQuantity(b)
		return qa.cmp(qb)
	}
	IsDNS1123Label     = isDNS1123Label
	IsDNS1123Subdomain = isDNS1123Subdomain
)
