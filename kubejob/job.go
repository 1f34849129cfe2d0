package kubejob

import (
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Spread says how strictly the shards' pods are kept on different nodes.
type Spread string

const (
	// SpreadRequired never puts two shards of one Job on the same node: a
	// shard that finds no free node stays Pending (and starts late, which
	// its records and the merge show) rather than share a NIC and memory
	// bandwidth with another shard, which would make N shards measure
	// less than N machines.
	SpreadRequired Spread = "required"
	// SpreadPreferred asks the scheduler to spread the shards but lets it
	// pack them when there are fewer nodes than shards: for small or
	// single-node clusters.
	SpreadPreferred Spread = "preferred"
)

// Defaults and bounds of a Spec.
const (
	DefaultName     = "tlsbench"
	DefaultCPUs     = 1
	DefaultMemory   = "512Mi"
	DefaultDeadline = 2 * time.Hour
	// MaxShards bounds a Job's pods: far beyond what one target needs,
	// and what the merge is sized and measured for.
	MaxShards = 1000
	MaxCPUs   = 256
	// MinMemory is what a shard's client needs for its connections,
	// sessions and histograms with room to spare.
	MinMemory = "32Mi"
	// MaxDeadline bounds the Job's lifetime: a run longer than a week is
	// more likely a slip of the unit than a plan.
	MaxDeadline = 7 * 24 * time.Hour
	// SecretPath is where the Secret's files appear in the pod.
	SecretPath = "/etc/tlsbench"
	// UID is the unprivileged user (and group) the shard runs as: the
	// image's numeric USER, stated again so that the pod runs non-root
	// whatever the image says.
	UID = 65532
)

// Labels on the Job and its pods; the anti-affinity selects the pods of
// one Job by them.
const (
	LabelName     = "app.kubernetes.io/name"
	LabelInstance = "app.kubernetes.io/instance"
	containerName = "tlsbench"
	tmpVolume     = "tmp"
	secretVolume  = "secret"
	// tmpSize bounds the scratch directory a run makes (its own working
	// files, never results: those go to the log).
	tmpSize = "64Mi"
)

// Spec is what the Job runs: Shards pods of Image, each running tlsbench
// run with RunArgs (without the word run) as one shard, all starting at
// StartAt. Zero fields take the defaults above.
type Spec struct {
	Name      string // the Job's name; DefaultName when empty
	Namespace string // empty: the namespace kubectl applies it to
	Image     string // an image whose entrypoint is tlsbench
	Shards    int    // pods, one shard each
	StartAt   time.Time
	CPUs      int    // whole CPUs each pod requests and is limited to
	Memory    string // memory each pod requests and is limited to, e.g. 512Mi
	Secret    string // a Secret mounted read-only at SecretPath, if any
	Spread    Spread // SpreadRequired when empty
	Deadline  time.Duration
	TTL       time.Duration // delete the finished Job (and its logs) after this; 0 keeps it
	RunArgs   []string
}

// New returns the Job for s, or a *field.Error naming the first field of
// s that cannot be used.
func New(s Spec) (*batchv1.Job, error) {
	s = s.withDefaults()
	mem, err := s.validate()
	if err != nil {
		return nil, err
	}
	labels := map[string]string{LabelName: "tlsbench", LabelInstance: s.Name}
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			CompletionMode: ptr(batchv1.IndexedCompletion),
			Completions:    ptr(int32(s.Shards)),
			Parallelism:    ptr(int32(s.Shards)),
			// A shard that failed is not run again: a retry would start
			// after the common start time and measure another window,
			// skewing the merged run. Its index fails instead (the
			// others carry on), and the merge reports it missing.
			// Kubernetes requires restartPolicy Never for this.
			BackoffLimitPerIndex:  ptr(int32(0)),
			ActiveDeadlineSeconds: ptr(seconds(s.Deadline)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       s.podSpec(labels, mem),
			},
		},
	}
	if s.TTL > 0 {
		job.Spec.TTLSecondsAfterFinished = ptr(int32(seconds(s.TTL)))
	}
	return job, nil
}

func (s Spec) withDefaults() Spec {
	if s.Name == "" {
		s.Name = DefaultName
	}
	if s.CPUs == 0 {
		s.CPUs = DefaultCPUs
	}
	if s.Memory == "" {
		s.Memory = DefaultMemory
	}
	if s.Spread == "" {
		s.Spread = SpreadRequired
	}
	if s.Deadline == 0 {
		s.Deadline = DefaultDeadline
	}
	return s
}

// Args are the container's arguments: the user's run, made shard of
// Shards (each pod's index comes from JOB_COMPLETION_INDEX, which
// Kubernetes sets in an Indexed Job), starting at StartAt, writing its
// records to standard output, which is the pod's log.
func (s Spec) Args() []string {
	args := append([]string{"run"}, s.RunArgs...)
	return append(args,
		"--shards", strconv.Itoa(s.Shards),
		"--start-at", s.StartAt.UTC().Format(time.RFC3339Nano),
		"--out", "-")
}

func (s Spec) podSpec(labels map[string]string, mem resource.Quantity) corev1.PodSpec {
	cpu := *resource.NewQuantity(int64(s.CPUs), resource.DecimalSI)
	// Requests equal to limits in whole CPUs make the pod Guaranteed:
	// its CPU is not lent to others, and with the static CPU manager it
	// gets cores of its own, so the shard's CPU figures mean something.
	res := corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem}
	c := corev1.Container{
		Name:            containerName,
		Image:           s.Image,
		Args:            s.Args(),
		Resources:       corev1.ResourceRequirements{Requests: res, Limits: res.DeepCopy()},
		SecurityContext: containerSecurity(),
		// A run makes a scratch directory; the root file system is
		// read-only.
		VolumeMounts: []corev1.VolumeMount{{Name: tmpVolume, MountPath: "/tmp"}},
	}
	spec := corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		// The shards talk to the target only, never to the API server.
		AutomountServiceAccountToken: ptr(false),
		EnableServiceLinks:           ptr(false),
		SecurityContext:              podSecurity(),
		Affinity:                     &corev1.Affinity{PodAntiAffinity: antiAffinity(s.Spread, labels)},
		Containers:                   []corev1.Container{c},
		Volumes: []corev1.Volume{{Name: tmpVolume, VolumeSource: corev1.VolumeSource{
			EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr(resource.MustParse(tmpSize))},
		}}},
	}
	if s.Secret != "" {
		spec.Volumes = append(spec.Volumes, corev1.Volume{Name: secretVolume, VolumeSource: corev1.VolumeSource{
			// Readable by the run's group (fsGroup), by no one else.
			Secret: &corev1.SecretVolumeSource{SecretName: s.Secret, DefaultMode: ptr(int32(0o440))},
		}})
		spec.Containers[0].VolumeMounts = append(spec.Containers[0].VolumeMounts,
			corev1.VolumeMount{Name: secretVolume, MountPath: SecretPath, ReadOnly: true})
	}
	return spec
}

// antiAffinity keeps the Job's pods (selected by labels) on different
// nodes, strictly or as a preference.
func antiAffinity(spread Spread, labels map[string]string) *corev1.PodAntiAffinity {
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

// podSecurity and containerSecurity meet the "restricted" Pod Security
// Standard: non-root, no privilege escalation, no capabilities, the
// runtime's default seccomp profile, and a read-only root file system.
func podSecurity() *corev1.PodSecurityContext {
	return &corev1.PodSecurityContext{
		RunAsNonRoot:   ptr(true),
		RunAsUser:      ptr(int64(UID)),
		RunAsGroup:     ptr(int64(UID)),
		FSGroup:        ptr(int64(UID)),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

func containerSecurity() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		RunAsNonRoot:             ptr(true),
		AllowPrivilegeEscalation: ptr(false),
		ReadOnlyRootFilesystem:   ptr(true),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

// seconds rounds d up to whole seconds, as the API counts them.
func seconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}

func ptr[T any](v T) *T { return &v }
