// Package kubejob builds the Kubernetes Job that runs tlsbench as N
// coordinated shards: a batch/v1 Indexed Job whose pod i runs shard i of
// the same plan against the same external target, all starting at one
// wall-clock instant baked into the manifest, each writing its results as
// JSON lines to its log for a merge to combine.
//
// The Job is built from typed objects of this package's own, with the
// fields it sets under the API's names, and written by a small YAML
// writer that quotes every string YAML would read as something else: the
// binary links none of Kubernetes' packages. The tests decode every
// manifest strictly into the API's real types (an unknown field is
// refused) and hold it, byte for byte, to what the API machinery's own
// encoder writes.
//
// Kubernetes places, starts and fails the pods; nothing here talks to a
// cluster. Errors are *field.Error naming the fields of Spec.
package kubejob
