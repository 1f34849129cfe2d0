package kubejob

import (
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// Manifest returns the Job for s as YAML, for kubectl apply -f -.
func Manifest(s Spec) ([]byte, error) {
	job, err := New(s)
	if err != nil {
		return nil, err
	}
	return Marshal(job)
}

// Marshal writes job as YAML through its JSON form, so that the field
// names and omissions are the API's own.
func Marshal(job *batchv1.Job) ([]byte, error) {
	return yaml.Marshal(job)
}
