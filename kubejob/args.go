package kubejob

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tlsbench/tlsbench/internal/field"
)

// setByJob are the run's settings the Job itself gives every shard, with
// why: the user's arguments must leave them out.
var setByJob = map[string]string{
	"shard":    "the Job gives each pod its shard index (from the pod's completion index)",
	"shards":   "the Job sets it to its own shard count",
	"start-at": "the Job sets it to the start time it bakes in",
	"out":      "the Job sets it: each shard writes its records to its log",
	"o":        "the Job sets it: each shard writes its records to its log",
}

// podFiles are the run's settings that name files the shard reads: in
// the pod, only the Secret's files exist.
var podFiles = []string{"ca", "client-cert", "client-key"}

// runFlag is one flag of the run's arguments as typed: its name without
// dashes and its value, from "--name=value" or the next argument.
type runFlag struct {
	typed, name, value string
}

// runFlags finds the flags among args. It does not know which flags take
// a value, so value is the next argument for those written without "=";
// only the flags that take one are asked for it.
func runFlags(args []string) []runFlag {
	var flags []runFlag
	for i, a := range args {
		if len(a) < 2 || a[0] != '-' || a == "--" {
			continue
		}
		typed, value, eq := strings.Cut(a, "=")
		f := runFlag{typed: typed, name: strings.TrimLeft(typed, "-"), value: value}
		if !eq && i+1 < len(args) {
			f.value = args[i+1]
		}
		flags = append(flags, f)
	}
	return flags
}

// checkRunArgs refuses run arguments a sharded run in a pod cannot use.
func checkRunArgs(args []string, haveSecret bool) error {
	if len(args) > 0 && args[0] == "run" {
		return field.Errorf("RunArgs", "run", "give the run's arguments without the word run: the Job adds it")
	}
	for _, a := range args {
		// The API carries arguments as UTF-8 text (JSON), and a process
		// argument ends at a NUL byte: either would reach the run changed.
		if !utf8.ValidString(a) || strings.ContainsRune(a, 0) {
			return field.Errorf("RunArgs", strconv.Quote(a), "an argument must be UTF-8 text without NUL bytes")
		}
	}
	if slices.Contains(args, "--") {
		// The flags the Job adds come after the user's: a "--" would make
		// them arguments, which the run refuses.
		return field.Errorf("RunArgs", "--", "the run takes flags only; leave it out of the run's arguments")
	}
	target, duration := false, false
	for _, f := range runFlags(args) {
		if why, ok := setByJob[f.name]; ok {
			return field.Errorf("RunArgs", f.typed, "%s; leave it out of the run's arguments", why)
		}
		target = target || f.name == "target"
		duration = duration || f.name == "duration"
		if err := checkPodFile(f, haveSecret); err != nil {
			return err
		}
	}
	if !target {
		return field.Errorf("RunArgs", nil, "a sharded run needs %s HOST:PORT, the server every shard loads "+
			"(the built-in server runs once per machine, so the shards would each measure their own)", field.Ref("Target.Addr"))
	}
	if !duration {
		return field.Errorf("RunArgs", nil, "a sharded run needs %s: cases of a fixed length, "+
			"so that every shard computes the same case boundaries", field.Ref("Duration"))
	}
	return nil
}

// checkPodFile refuses a file the pod will not have: every file a shard
// reads comes from the Secret, mounted at SecretPath.
func checkPodFile(f runFlag, haveSecret bool) error {
	if !slices.Contains(podFiles, f.name) || f.value == "" {
		return nil
	}
	shown := f.typed + " " + f.value
	if !haveSecret {
		return field.Errorf("RunArgs", shown, "the pods have no files but a Secret's: mount one with %s "+
			"and name the file as %s/%s", field.Ref("Secret"), SecretPath, path.Base(f.value))
	}
	if !strings.HasPrefix(path.Clean(f.value), SecretPath+"/") {
		return field.Errorf("RunArgs", shown, "the Secret's files are in %s in the pod: name it %s/%s",
			SecretPath, SecretPath, path.Base(f.value))
	}
	return nil
}
