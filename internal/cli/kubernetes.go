package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/kubejob"
)

const kubernetesJobUsage = `Usage: tlsbench kubernetes job --shards N --image IMAGE [flags] -- run RUN-FLAGS...

Prints a Kubernetes Job (batch/v1, YAML) that runs 'tlsbench run RUN-FLAGS'
as N shards, one pod each, against the same --target: an Indexed Job whose
pod I runs shard I of N, every shard starting its first case at the same
instant, --start-in from now (the time is written into the manifest: apply
it at once). The run needs --target, the server every shard loads, and
--duration, so that its cases have a fixed length. Each shard writes its
results as JSON lines to its log, for 'tlsbench merge' to combine into
one run. It says on stderr when the shards start and when they end: wait
for the Job (kubectl wait --timeout) longer than that.

The Job is stopped --deadline after it is created, whatever its pods are
doing. A deadline given must cover --start-in, the run's length and a
tenth of the run to spare (at least 5 minutes), and a shorter one is
refused; without --deadline it is 2h, or that sum when the run needs
longer.

The pods are spread over the nodes, at most one shard a node with --spread
required (a shard that finds no free node waits, and starts late); they
request and are limited to --cpus whole CPUs and --memory, so each gets
the CPUs it is measured on to itself. A shard that fails is not run again
(a second try would measure another window): the merge reports it
missing. The pods run as an unprivileged user with a read-only file system
and no capabilities; the only files they see are those of --secret, at
/etc/tlsbench, so --ca, --client-cert and --client-key name files there.

Examples:
  tlsbench kubernetes job --shards 4 --image registry.example.com/tlsbench:1.0 \
      -- run --target server.example.com:443 --tls 1.3 --resume off,on --concurrency 64 --duration 30s | kubectl apply -f -
  kubectl create secret generic tlsbench-pki --from-file=ca.pem=pki/ca.pem
  tlsbench kubernetes job --shards 8 --image registry.example.com/tlsbench:1.0 --secret tlsbench-pki \
      --start-in 1m --cpus 2 -- run --target server.internal:8443 --ca /etc/tlsbench/ca.pem --rate 20000 --duration 1m

Flags:
`

// kubernetesCmd dispatches the kubernetes subcommands; job is the only
// one.
func kubernetesCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return command.Usagef("no kubernetes command given; try 'tlsbench kubernetes job --shards N --image IMAGE -- run ...' (see 'tlsbench kubernetes job --help')")
	}
	switch args[0] {
	case "job":
		return kubernetesJobCmd(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		return kubernetesJobCmd(ctx, []string{"--help"}, stdout, stderr)
	}
	return command.Usagef("unknown kubernetes command %q; the only one is job (see 'tlsbench kubernetes job --help')", args[0])
}

func kubernetesJobCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := command.NewUsageFlagSet("kubernetes job", kubernetesJobUsage, stdout)
	var s kubejob.Spec
	fs.IntVar(&s.Shards, "shards", 0, "`N` shards, one pod each (at most 1000)")
	fs.StringVar(&s.Image, "image", "", "`IMAGE` whose entrypoint is tlsbench, e.g. registry.example.com/tlsbench:1.0")
	startIn := fs.Duration("start-in", 30*time.Second, "the shards start this long after the manifest is printed: time to apply it, schedule the pods and pull the image")
	fs.StringVar(&s.Name, "name", kubejob.DefaultName, "`NAME` of the Job (its pods are NAME-INDEX-...)")
	fs.StringVar(&s.Namespace, "namespace", "", "`NAMESPACE` of the Job (default: the one kubectl applies it to)")
	fs.IntVar(&s.CPUs, "cpus", kubejob.DefaultCPUs, "whole CPUs `N` each pod requests and is limited to")
	fs.StringVar(&s.Memory, "memory", kubejob.DefaultMemory, "memory `SIZE` each pod requests and is limited to, e.g. 1Gi")
	fs.StringVar(&s.Secret, "secret", "", "`NAME` of a Secret mounted read-only at /etc/tlsbench: the CA and client identity files")
	spread := fs.String("spread", string(kubejob.SpreadRequired), "required: never two shards on one node (a shard with no free node waits); preferred: spread them where there are nodes enough")
	fs.DurationVar(&s.Deadline, "deadline", kubejob.DefaultDeadline, "the Job and its pods are stopped this long after it is created; it must cover --start-in, the run's length and a tenth of the run to spare (at least 5m); when not given, 2h, or that sum when the run needs longer")
	fs.DurationVar(&s.TTL, "ttl", 0, "delete the finished Job this long after it ends, its pods and logs with it (default: keep it)")

	kubeArgs, runArgs, dashes := splitAtDashes(args)
	if err := parseKubernetesFlags(fs, kubeArgs); err != nil {
		return err
	}
	if err := checkRunWord(runArgs, dashes); err != nil {
		return err
	}
	s.RunArgs = runArgs[1:]
	s.Spread = kubejob.Spread(*spread)
	if err := checkZeroes(s); err != nil {
		return err
	}
	if err := checkStartIn(*startIn); err != nil {
		return err
	}
	s.StartAt = startAt(time.Now(), *startIn)
	if err := ctx.Err(); err != nil {
		return err
	}
	// The Job's own settings and the run's arguments first: their
	// messages say more than the run's own refusal of the same mistake.
	if _, err := kubejob.Manifest(s); err != nil {
		return &command.UsageError{Msg: command.UserTextNamed(err, kubernetesFlags)}
	}
	length, err := checkShardRun(s)
	if err != nil {
		return err
	}
	raised, err := fitDeadline(&s, *startIn, length, fs.IsSet("deadline"))
	if err != nil {
		return err
	}
	out, err := kubejob.Manifest(s)
	if err != nil {
		return &command.UsageError{Msg: command.UserTextNamed(err, kubernetesFlags)}
	}
	if _, err := stdout.Write(out); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "tlsbench: the shards start at %s (in %s) and end by %s (the run takes %s): apply the manifest now\n",
		s.StartAt.Format(time.RFC3339), *startIn, s.StartAt.Add(length).Format(time.RFC3339), length)
	if raised {
		fmt.Fprintf(stderr, "tlsbench: --deadline not given: the Job may run for %s (the start, the run and time to spare), longer than the default %s\n",
			s.Deadline, kubejob.DefaultDeadline)
	}
	return nil
}

// minDeadline is the shortest --deadline a run of length that starts
// startIn after the Job is created may have: the start, the run, and a
// tenth of the run (at least deadlineSpare) for pods that start late and
// for the last records, rounded up to a minute.
func minDeadline(startIn, length time.Duration) time.Duration {
	d := startIn + length + max(deadlineSpare, length/10)
	if r := d.Truncate(time.Minute); r < d {
		return r + time.Minute
	}
	return d
}

// deadlineSpare is the least time a Job's deadline leaves beyond its
// start and its run.
const deadlineSpare = 5 * time.Minute

// fitDeadline holds the Job's deadline to what the run needs: a deadline
// given shorter is refused; the default grows to it (raised).
func fitDeadline(s *kubejob.Spec, startIn, length time.Duration, given bool) (raised bool, err error) {
	need := minDeadline(startIn, length)
	switch {
	case need > kubejob.MaxDeadline:
		return false, command.Usagef("the run takes %s from the manifest (--start-in %s and the run's %s, with time to spare): more than a Job may run, %s; split the cases over several Jobs or shorten --duration",
			need, startIn, length, kubejob.MaxDeadline)
	case given && s.Deadline < need:
		return false, command.Usagef("--deadline %s: too short: it must cover --start-in %s, the run (%s) and a tenth of the run to spare (at least %s); give --deadline %s or more",
			s.Deadline, startIn, length, deadlineSpare, need)
	case !given && s.Deadline < need:
		s.Deadline = need
		return true, nil
	}
	return false, nil
}

// checkShardRun refuses here, with run's own reasons, a run every shard
// would refuse when it starts: said in a pod's log minutes later, on a
// cluster, it would cost a whole Job. Only the flags are judged: the
// files the run names are the pods', under /etc/tlsbench. It returns
// how long the run takes from its start.
func checkShardRun(s kubejob.Spec) (time.Duration, error) {
	args := append(slices.Clip(s.RunArgs), "--shard", fmt.Sprintf("0/%d", s.Shards),
		"--start-at", s.StartAt.UTC().Format(time.RFC3339), "--out", "-")
	fs, f, err := parseRun(args, io.Discard)
	if err == nil {
		err = validateRun(fs, f)
	}
	var job *runJob
	if err == nil {
		// The plan's own checks (a wave or a rate too small to split);
		// a baseline file is the pods' too, not read here.
		f.baseline = ""
		job, err = planRun(fs, f)
	}
	var ue *command.UsageError
	switch {
	case err == nil:
		return job.plan.RunLength(), nil
	case errors.As(err, &ue):
		return 0, command.Usagef("the shards would refuse their run: %s", ue.Msg)
	}
	return 0, err
}

// splitAtDashes splits args at the first "--": the command's own flags,
// and the run that the shards make.
func splitAtDashes(args []string) (own, run []string, dashes bool) {
	i := slices.Index(args, "--")
	if i < 0 {
		return args, nil, false
	}
	return args[:i], args[i+1:], true
}

// parseKubernetesFlags parses the command's own flags; "run" among them
// means the "--" before it was left out.
func parseKubernetesFlags(fs *command.FlagSet, args []string) error {
	if err := fs.ParseOnce(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		if fs.Arg(0) == "run" {
			return command.Usagef("put -- before run: the run's flags follow it (tlsbench kubernetes job --shards N --image IMAGE -- run --target HOST:PORT ...)")
		}
		return command.Usagef("unexpected argument %q (see 'tlsbench kubernetes job --help')", fs.Arg(0))
	}
	switch {
	case !fs.IsSet("shards"):
		return command.Usagef("--shards: missing; give the number of shards, one pod each (e.g. --shards 4)")
	case !fs.IsSet("image"):
		return command.Usagef("--image: missing; name the image that holds tlsbench (e.g. --image registry.example.com/tlsbench:1.0)")
	}
	return nil
}

// checkRunWord wants the run after "--": only a run can be sharded.
func checkRunWord(run []string, dashes bool) error {
	switch {
	case !dashes || len(run) == 0:
		return command.Usagef("no run given; end with -- run --target HOST:PORT and the run's other flags")
	case run[0] != "run":
		return command.Usagef("-- %s: only run can be sharded; end with -- run --target HOST:PORT and the run's other flags", run[0])
	}
	return nil
}

// checkZeroes refuses the flags given as zero or empty, which the Job's
// library would take as "the default" rather than as typed.
func checkZeroes(s kubejob.Spec) error {
	switch {
	case s.Name == "":
		return command.Usagef("--name: empty; name the Job, e.g. --name %s", kubejob.DefaultName)
	case s.CPUs == 0:
		return command.Usagef("--cpus 0: must be a whole number of CPUs, at least 1")
	case s.Memory == "":
		return command.Usagef("--memory: empty; give a size such as %s", kubejob.DefaultMemory)
	case s.Spread == "":
		return command.Usagef("--spread: empty; want %s or %s", kubejob.SpreadRequired, kubejob.SpreadPreferred)
	case s.Deadline <= 0:
		return command.Usagef("--deadline %s: must be positive, e.g. 2h", s.Deadline)
	}
	return nil
}

// checkStartIn refuses a start that is not ahead: the pods need the
// time to be scheduled and to pull the image. The deadline, which
// counts from the Job's creation, must cover it (fitDeadline).
func checkStartIn(startIn time.Duration) error {
	if startIn <= 0 {
		return command.Usagef("--start-in %s: must be positive: the time to apply the manifest, schedule the pods and pull the image (e.g. 30s)", startIn)
	}
	return nil
}

// startAt is now plus startIn, rounded up to a whole second so that the
// manifest reads plainly; never earlier than asked.
func startAt(now time.Time, startIn time.Duration) time.Time {
	t := now.Add(startIn).UTC()
	if r := t.Truncate(time.Second); r.Before(t) {
		return r.Add(time.Second)
	}
	return t
}

// kubernetesFlags are the kubernetes command's flags by the fields of the
// Job's description they set (RunArgs are the arguments after "-- run",
// named as the run they are).
var kubernetesFlags = map[string]string{
	"Image": "--image", "Name": "--name", "Namespace": "--namespace", "CPUs": "--cpus", "Memory": "--memory",
	"Secret": "--secret", "Spread": "--spread", "Deadline": "--deadline", "TTL": "--ttl", "RunArgs": "run",
}
