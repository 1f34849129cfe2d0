package kubejob

import (
	"strconv"
	"time"
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
	// hostnameLabel is the node label every node has, its host name:
	// one shard a node.
	hostnameLabel = "kubernetes.io/hostname"
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
func New(s Spec) (*Job, error) {
	s = s.withDefaults()
	mem, err := s.validate()
	if err != nil {
		return nil, err
	}
	job := &Job{
		APIVersion: "batch/v1",
		Kind:       "Job",
		Metadata:   Metadata{Name: s.Name, Namespace: s.Namespace, Labels: s.labels()},
		Spec: JobSpec{
			CompletionMode: "Indexed",
			Completions:    int32(s.Shards),
			Parallelism:    int32(s.Shards),
			// A shard that failed is not run again: a retry would start
			// after the common start time and measure another window,
			// skewing the merged run. Its index fails instead (the
			// others carry on), and the merge reports it missing.
			// Kubernetes requires restartPolicy Never for this.
			BackoffLimitPerIndex:  0,
			ActiveDeadlineSeconds: seconds(s.Deadline),
			Template: PodTemplate{
				Metadata: Metadata{Labels: s.labels()},
				Spec:     s.podSpec(mem),
			},
		},
	}
	if s.TTL > 0 {
		job.Spec.TTLSecondsAfterFinished = int32(seconds(s.TTL))
	}
	return job, nil
}

// labels are the Job's and its pods'; the anti-affinity selects by them.
// Each use has its own map, so that changing one changes no other.
func (s Spec) labels() map[string]string {
	return map[string]string{LabelName: "tlsbench", LabelInstance: s.Name}
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

func (s Spec) podSpec(mem string) PodSpec {
	// Requests equal to limits in whole CPUs make the pod Guaranteed:
	// its CPU is not lent to others, and with the static CPU manager it
	// gets cores of its own, so the shard's CPU figures mean something.
	res := func() map[string]string {
		return map[string]string{"cpu": strconv.Itoa(s.CPUs), "memory": mem}
	}
	c := Container{
		Name:            containerName,
		Image:           s.Image,
		Args:            s.Args(),
		Resources:       Resources{Requests: res(), Limits: res()},
		SecurityContext: containerSecurity(),
		// A run makes a scratch directory; the root file system is
		// read-only.
		VolumeMounts: []VolumeMount{{Name: tmpVolume, MountPath: "/tmp"}},
	}
	spec := PodSpec{
		RestartPolicy: "Never",
		// The shards talk to the target only, never to the API server.
		AutomountServiceAccountToken: false,
		EnableServiceLinks:           false,
		SecurityContext:              podSecurity(),
		Affinity:                     Affinity{PodAntiAffinity: antiAffinity(s.Spread, s.labels())},
		Containers:                   []Container{c},
		Volumes:                      []Volume{{Name: tmpVolume, EmptyDir: &EmptyDir{SizeLimit: tmpSize}}},
	}
	if s.Secret != "" {
		spec.Volumes = append(spec.Volumes, Volume{Name: secretVolume,
			// Readable by the run's group (fsGroup), by no one else.
			Secret: &SecretVolume{SecretName: s.Secret, DefaultMode: 0o440}})
		spec.Containers[0].VolumeMounts = append(spec.Containers[0].VolumeMounts,
			VolumeMount{Name: secretVolume, MountPath: SecretPath, ReadOnly: true})
	}
	return spec
}

// antiAffinity keeps the Job's pods (selected by labels) on different
// nodes, strictly or as a preference.
func antiAffinity(spread Spread, labels map[string]string) PodAntiAffinity {
	term := PodAffinityTerm{
		LabelSelector: LabelSelector{MatchLabels: labels},
		TopologyKey:   hostnameLabel,
	}
	if spread == SpreadPreferred {
		return PodAntiAffinity{Preferred: []WeightedPodAffinityTerm{{Weight: 100, PodAffinityTerm: term}}}
	}
	return PodAntiAffinity{Required: []PodAffinityTerm{term}}
}

// podSecurity and containerSecurity meet the "restricted" Pod Security
// Standard: non-root, no privilege escalation, no capabilities, the
// runtime's default seccomp profile, and a read-only root file system.
func podSecurity() PodSecurityContext {
	return PodSecurityContext{
		RunAsNonRoot:   true,
		RunAsUser:      UID,
		RunAsGroup:     UID,
		FSGroup:        UID,
		SeccompProfile: SeccompProfile{Type: "RuntimeDefault"},
	}
}

func containerSecurity() SecurityContext {
	return SecurityContext{
		RunAsNonRoot:             true,
		AllowPrivilegeEscalation: false,
		ReadOnlyRootFilesystem:   true,
		Capabilities:             Capabilities{Drop: []string{"ALL"}},
		SeccompProfile:           SeccompProfile{Type: "RuntimeDefault"},
	}
}

// seconds rounds d up to whole seconds, as the API counts them.
func seconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}
