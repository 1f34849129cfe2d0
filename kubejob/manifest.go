package kubejob

// The manifest's own types: the fields of batch/v1 Job and core/v1 Pod
// that this package sets, under the API's JSON names, and nothing else.
// The tests decode every manifest strictly into the API's real types, so
// a field misnamed or misplaced here fails them; the binary does not link
// the API's packages, which are many and large, to print one document.

// Job is a batch/v1 Job.
type Job struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Metadata   Metadata  `json:"metadata"`
	Spec       JobSpec   `json:"spec"`
	Status     JobStatus `json:"status"`
}

// JobStatus is always empty: the API server fills it in. It is written
// (as {}) because the manifest always had it.
type JobStatus struct{}

// Metadata is an object's name, namespace and labels.
type Metadata struct {
	Name      string            `json:"name,omitempty"`
	Namespace string            `json:"namespace,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
}

// JobSpec is an Indexed Job of Completions pods, all run at once.
type JobSpec struct {
	CompletionMode          string      `json:"completionMode"`
	Completions             int32       `json:"completions"`
	Parallelism             int32       `json:"parallelism"`
	BackoffLimitPerIndex    int32       `json:"backoffLimitPerIndex"`
	ActiveDeadlineSeconds   int64       `json:"activeDeadlineSeconds"`
	TTLSecondsAfterFinished int32       `json:"ttlSecondsAfterFinished,omitempty"`
	Template                PodTemplate `json:"template"`
}

// PodTemplate is what each of the Job's pods is made from.
type PodTemplate struct {
	Metadata Metadata `json:"metadata"`
	Spec     PodSpec  `json:"spec"`
}

// PodSpec is one shard's pod.
type PodSpec struct {
	RestartPolicy                string             `json:"restartPolicy"`
	AutomountServiceAccountToken bool               `json:"automountServiceAccountToken"`
	EnableServiceLinks           bool               `json:"enableServiceLinks"`
	SecurityContext              PodSecurityContext `json:"securityContext"`
	Affinity                     Affinity           `json:"affinity"`
	Containers                   []Container        `json:"containers"`
	Volumes                      []Volume           `json:"volumes"`
}

// PodSecurityContext is the pod's user, group and seccomp profile.
type PodSecurityContext struct {
	RunAsNonRoot   bool           `json:"runAsNonRoot"`
	RunAsUser      int64          `json:"runAsUser"`
	RunAsGroup     int64          `json:"runAsGroup"`
	FSGroup        int64          `json:"fsGroup"`
	SeccompProfile SeccompProfile `json:"seccompProfile"`
}

// SeccompProfile names the seccomp profile a pod or container runs under.
type SeccompProfile struct {
	Type string `json:"type"`
}

// Affinity holds the anti-affinity that spreads the shards over nodes.
type Affinity struct {
	PodAntiAffinity PodAntiAffinity `json:"podAntiAffinity"`
}

// PodAntiAffinity has one term, required or preferred.
type PodAntiAffinity struct {
	Required  []PodAffinityTerm         `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	Preferred []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PodAffinityTerm selects pods by label, per topology domain.
type PodAffinityTerm struct {
	LabelSelector LabelSelector `json:"labelSelector"`
	TopologyKey   string        `json:"topologyKey"`
}

// LabelSelector matches labels exactly.
type LabelSelector struct {
	MatchLabels map[string]string `json:"matchLabels"`
}

// WeightedPodAffinityTerm is a preferred term and its weight (1-100).
type WeightedPodAffinityTerm struct {
	Weight          int32           `json:"weight"`
	PodAffinityTerm PodAffinityTerm `json:"podAffinityTerm"`
}

// Container is the shard's one container.
type Container struct {
	Name            string          `json:"name"`
	Image           string          `json:"image"`
	Args            []string        `json:"args"`
	Resources       Resources       `json:"resources"`
	SecurityContext SecurityContext `json:"securityContext"`
	VolumeMounts    []VolumeMount   `json:"volumeMounts"`
}

// Resources are the container's requests and limits, as the API writes
// quantities: cpu and memory.
type Resources struct {
	Limits   map[string]string `json:"limits"`
	Requests map[string]string `json:"requests"`
}

// SecurityContext is the container's: no privilege, no capabilities, a
// read-only root.
type SecurityContext struct {
	RunAsNonRoot             bool           `json:"runAsNonRoot"`
	AllowPrivilegeEscalation bool           `json:"allowPrivilegeEscalation"`
	ReadOnlyRootFilesystem   bool           `json:"readOnlyRootFilesystem"`
	Capabilities             Capabilities   `json:"capabilities"`
	SeccompProfile           SeccompProfile `json:"seccompProfile"`
}

// Capabilities are those dropped.
type Capabilities struct {
	Drop []string `json:"drop"`
}

// VolumeMount mounts a volume of the pod in the container.
type VolumeMount struct {
	Name      string `json:"name"`
	MountPath string `json:"mountPath"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
}

// Volume is a scratch directory or a Secret.
type Volume struct {
	Name     string        `json:"name"`
	EmptyDir *EmptyDir     `json:"emptyDir,omitempty"`
	Secret   *SecretVolume `json:"secret,omitempty"`
}

// EmptyDir is a scratch directory of at most SizeLimit.
type EmptyDir struct {
	SizeLimit string `json:"sizeLimit"`
}

// SecretVolume is a Secret's files, with the mode they get.
type SecretVolume struct {
	SecretName  string `json:"secretName"`
	DefaultMode int32  `json:"defaultMode"`
}
