// Package kubejob builds the Kubernetes Job that runs tlsbench as N
// coordinated shards: a batch/v1 Indexed Job whose pod i runs shard i of
// the same plan against the same external target, all starting at one
// wall-clock instant baked into the manifest, each writing its results as
// JSON lines to its log for a merge to combine.
//
// The Job is built from the API's own typed objects and serialised with
// the API machinery's YAML encoder, so that what the API server validates
// is what the types allow, not what a text template happened to print.
//
// Kubernetes places, starts and fails the pods; nothing here talks to a
// cluster. Errors are *field.Error naming the fields of Spec.
package kubejob
