#!/usr/bin/env bash
# The test command of README.md, and all that CI runs (.ci/run calls it):
# the real peers the tests need (scripts/packages.txt, installed when
# missing if this runs as root with apt-get), static checks (gofmt, go vet,
# staticcheck at the version go.mod pins as a tool), bounded fuzzing of
# every fuzz target, the kTLS tests inside a real kernel, and the whole Go
# test suite under the race detector with every real peer.
#
# The kTLS VM is emulated (TCG: nested KVM does not boot here) and so takes
# CPU, about two cores, for as long as it runs: it runs in the background
# beside the static checks and the fuzzing, which time nothing, and is
# waited for before the race run, whose timing tests must have the machine
# to themselves (other packages' tests aside). Its output is printed as one
# block when it ends.
#
# Environment: FUZZTIME (default 3s per fuzz target; FUZZTIME=1m fuzzes
# longer), FUZZJOBS (fuzz targets run at once, default the number of
# CPUs), and those of scripts/ktls-vm-test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzz_jobs=${FUZZJOBS:-$(nproc)}
if ! [[ $fuzz_jobs =~ ^[1-9][0-9]*$ ]]; then
	echo "FUZZJOBS=$fuzz_jobs: want a number of fuzz targets to run at once, 1 or more"; exit 2
fi

# step ends the step before it, printing how long it took, and names the
# next with the time spent so far: the whole command must stay under 8
# minutes on 2 cores, and the race run is most of it.
step_name="" step_start=0
step() {
	if [[ -n $step_name ]]; then echo "-- $step_name: $((SECONDS - step_start))s"; fi
	step_name=$* step_start=$SECONDS
	echo "== $* (${SECONDS}s)"
}

# packages prints the package list, then missing the packages whose command
# is not installed.
packages() { sed -e 's/#.*//' scripts/packages.txt | awk 'NF >= 2 {print $1, $2}'; }
missing_packages() {
	local pkg cmd
	packages | while read -r pkg cmd; do
		if command -v dpkg-query >/dev/null 2>&1; then
			dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || echo "$pkg"
		else
			command -v "$cmd" >/dev/null 2>&1 || echo "$pkg"
		fi
	done
}

step "packages (scripts/packages.txt)"
mapfile -t missing < <(missing_packages)
if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	# Refresh the package lists even when nothing is missing: the kTLS VM
	# fetches Debian's current cloud kernel with apt-get download.
	if ! apt-get update -qq; then
		((${#missing[@]} == 0)) || { echo "apt-get update failed; cannot install: ${missing[*]}"; exit 1; }
		echo "apt-get update failed; going on with the package lists there are"
	fi
	if ((${#missing[@]})); then
		echo "installing: ${missing[*]}"
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
		mapfile -t missing < <(missing_packages)
	fi
fi
# Debian's squid package may start its own Squid on install; the tests
# start their own, on free ports, and another one would only take CPU from
# the measurements. CI containers usually have no systemd.
squid_pid=${SQUID_SERVICE_PIDFILE:-/run/squid.pid}
if [[ $(id -u) == 0 && -s $squid_pid ]] && kill -0 "$(cat "$squid_pid")" 2>/dev/null; then
	echo "stopping the distribution's squid service"
	if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null 2>&1; then
		systemctl disable --now squid || true
	elif command -v service >/dev/null 2>&1; then
		service squid stop || true
	fi
	if [[ -s $squid_pid ]] && kill -0 "$(cat "$squid_pid")" 2>/dev/null; then
		echo "the distribution's squid (pid $(cat "$squid_pid")) still runs: stop it (service squid stop)"
		exit 1
	fi
fi
if ((${#missing[@]})); then
	echo "missing packages the tests need: ${missing[*]}"
	echo "install them (Debian, Ubuntu) with:"
	echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
	echo "or run this script as root, which installs them; 'go test -short ./...' runs the Go tests alone"
	exit 1
fi

step "gofmt, go vet"
unformatted=$(gofmt -l .)
if [[ -n "$unformatted" ]]; then
	echo "gofmt needed on:"; echo "$unformatted"; exit 1
fi

# The kTLS VM starts here, in a session of its own so that an early exit
# (a failed check) ends all of it, qemu included; its output goes to a log
# printed when it is waited for.
vm_log=$(mktemp "${TMPDIR:-/tmp}/tlsbench-ktls-vm.XXXXXX")
vm_pid="" vm_started=$SECONDS
setsid -w scripts/ktls-vm-test.sh >"$vm_log" 2>&1 </dev/null &
vm_pid=$!
stop_vm() {
	if [[ -z $vm_pid ]]; then
		rm -f "$vm_log"
		return
	fi
	if kill -0 "$vm_pid" 2>/dev/null; then
		echo "stopping the kTLS VM"
		kill -TERM -- "-$vm_pid" 2>/dev/null || kill -TERM "$vm_pid" 2>/dev/null || true
	fi
	wait "$vm_pid" 2>/dev/null || true
	echo "the kTLS VM's output so far: $vm_log"
}
trap 'rc=$?; [[ -z $step_name || $rc == 0 ]] || echo "-- $step_name: $((SECONDS - step_start))s, failed"; stop_vm; exit $rc' EXIT
echo "kTLS VM started in the background (${vm_started}s)"

go vet ./...
# Every package builds for the two platforms furthest from Linux, and the
# packages with code of their own there are vetted on macOS. The flags are
# those of scripts/release.sh (no cgo, -trimpath) on the platforms its
# test builds, so that the test finds the packages compiled and only links.
for platform in windows/amd64 darwin/arm64; do
	GOOS=${platform%/*} GOARCH=${platform#*/} CGO_ENABLED=0 go build -trimpath ./...
done
GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 go vet -trimpath ./internal/ktls/ ./internal/usage/ ./server/

step "staticcheck"
# The version is the one go.mod's tool line pins (go get -tool to change it).
go tool staticcheck ./...

step "fuzz (bounded, ${FUZZTIME:-3s} per target)"
# Every fuzz target of the module (found in the test files, so that a new
# one or one moved to another package is fuzzed without a change here),
# FUZZJOBS at once, each with an equal share of the CPUs as its workers.
# -fuzzminimizetime keeps a new interesting input from spending the whole
# budget on minimisation.
#
# Go 1.26's fuzzing coordinator can end a clean run with a bare "context
# deadline exceeded" when -fuzztime expires while a worker is mid-call
# (go.dev/issue/75804, fixed in Go 1.27): no input failed and none was
# written. Such a run counts as passed, with a line saying so; a failure
# that wrote a reproducer to testdata/fuzz, or any other failure, fails.
reproducers() { # reproducers PKG TARGET: how many inputs testdata/fuzz keeps
	local dir=$1/testdata/fuzz/$2
	if [[ -d $dir ]]; then find "$dir" -type f | wc -l; else echo 0; fi
}
fuzz() { # fuzz PKG TARGET WORKERS: prints its result, fails as the target did
	local pkg=$1 target=$2 workers=$3 out rc=0 before after
	before=$(reproducers "$pkg" "$target")
	out=$(go test -run '^$' -fuzz "^$target\$" -fuzztime "${FUZZTIME:-3s}" -fuzzminimizetime 2s \
		-parallel "$workers" "$pkg" 2>&1) || rc=$?
	if ((rc == 0)); then
		echo "$out" | tail -n 2
		return 0
	fi
	after=$(reproducers "$pkg" "$target")
	if ((after == before)) && grep -q -- "--- FAIL: $target" <<<"$out" &&
		[[ $(grep -A1 -- "--- FAIL: $target" <<<"$out" | tail -n 1) =~ ^[[:space:]]*context\ deadline\ exceeded$ ]]; then
		echo "$out" | tail -n 4
		echo "$target: the fuzzer's own end-of-time race (no input failed, none written): passed"
		return 0
	fi
	echo "$out"
	return "$rc"
}
fuzz_targets() { # prints PKG TARGET for every func FuzzX(f *testing.F) in a test file
	grep -rE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(' . |
		sed -E 's#^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*#\1 \2#' | sort -u
}
mapfile -t targets < <(fuzz_targets)
((${#targets[@]})) || { echo "no fuzz targets found"; exit 1; }
workers=$(($(nproc) / fuzz_jobs > 0 ? $(nproc) / fuzz_jobs : 1))
fuzz_dir=$(mktemp -d "${TMPDIR:-/tmp}/tlsbench-fuzz.XXXXXX")
# FUZZJOBS lanes, each fuzzing its share of the targets one after another:
# a package's targets share a lane, so that its instrumented build is made
# once, not twice side by side.
lane_of=() pkgs=0 last=""
for i in "${!targets[@]}"; do
	read -r pkg _ <<<"${targets[$i]}"
	if [[ $pkg != "$last" ]]; then pkgs=$((pkgs + 1)) last=$pkg; fi
	lane_of[i]=$(((pkgs - 1) % fuzz_jobs))
done
# Fuzzing builds every package instrumented, the standard library's too.
# The lanes would compile the packages they share side by side, each for
# itself: one target of the package whose tests import the most is
# fuzzed first, alone with every CPU, and its build is then most of
# every other's.
first=0 most=0 last=""
for i in "${!targets[@]}"; do
	read -r pkg _ <<<"${targets[$i]}"
	[[ $pkg != "$last" ]] || continue
	last=$pkg
	deps=$(go list -deps -test "$pkg" | wc -l)
	if ((deps > most)); then first=$i most=$deps; fi
done
read -r pkg target <<<"${targets[$first]}"
rc=0
fuzz "$pkg" "$target" "$(nproc)" >"$fuzz_dir/$first.out" 2>&1 || rc=$?
echo "$rc" >"$fuzz_dir/$first.rc"
lane_of[first]=-1
lanes=()
for ((lane = 0; lane < fuzz_jobs; lane++)); do
	(
		for i in "${!targets[@]}"; do
			((lane_of[i] == lane)) || continue
			read -r pkg target <<<"${targets[$i]}"
			rc=0
			fuzz "$pkg" "$target" "$workers" >"$fuzz_dir/$i.out" 2>&1 || rc=$?
			echo "$rc" >"$fuzz_dir/$i.rc"
		done
	) &
	lanes+=($!)
done
wait "${lanes[@]}"
fuzz_failed=()
for i in "${!targets[@]}"; do
	echo "fuzz ${targets[$i]}:"
	cat "$fuzz_dir/$i.out"
	[[ $(cat "$fuzz_dir/$i.rc" 2>/dev/null) == 0 ]] || fuzz_failed+=("${targets[$i]}")
done
rm -rf "$fuzz_dir"
if ((${#fuzz_failed[@]})); then
	echo "fuzzing failed: ${fuzz_failed[*]}"; exit 1
fi

step "race: the packages without timing tests (beside the kTLS VM)"
# The race run is split in two. The packages whose tests time, load or
# count CPU, or start real peers and servers (timed), run after the VM,
# which would take their CPU; the others (parsers, reports, the merge,
# the PKI: pure work) run here, beside it, and the timed ones are built
# here so that their run below only links and runs (the build cache keeps
# the compiled packages). A new package runs here unless it is listed.
timed='runner|internal/cli|loadgen|measure|client|probe|server|proxy|keys|scripts|internal/(peers|usage|ratelog|tempdir|childproc|servertest|acceptloop)'
# go test starts the packages' tests in the order given, two at a time on
# two CPUs: the longest (runner, the CLI, loadgen, probe) go first, so
# that the short ones fill in beside them rather than leaving one long
# package to run alone at the end.
longest='runner internal/cli loadgen probe'
mapfile -t timed_pkgs < <(
	for p in $longest; do echo "github.com/tlsbench/tlsbench/$p"; done
	go list ./... | grep -E "^github.com/tlsbench/tlsbench/($timed)\$" | grep -vxF -f <(for p in $longest; do echo "github.com/tlsbench/tlsbench/$p"; done)
)
mapfile -t plain_pkgs < <(go list ./... | grep -vE "^github.com/tlsbench/tlsbench/($timed)\$")
CI=1 go test -race -count=1 -timeout 10m "${plain_pkgs[@]}"
go test -race -count=1 -run '^$' "${timed_pkgs[@]}" >/dev/null

step "kTLS in a VM (started at ${vm_started}s)"
vm_rc=0
wait "$vm_pid" || vm_rc=$?
vm_pid=""
echo "---- kTLS VM output (scripts/ktls-vm-test.sh) ----"
cat "$vm_log"
echo "---- end of kTLS VM output: exit $vm_rc, $((SECONDS - vm_started))s since it started ----"
((vm_rc == 0)) || { echo "the kTLS tests in the VM failed (exit $vm_rc)"; exit 1; }

step "go test -race (the timed packages)"
# Every test runs once, under the race detector, with every real peer (a
# second run without -race would only repeat the same tests).
# CI=1 makes a test that needs a real peer fail, not skip, when it is
# missing: every peer was installed above.
CI=1 go test -race -count=1 -timeout 20m "${timed_pkgs[@]}"
step "all tests passed"
