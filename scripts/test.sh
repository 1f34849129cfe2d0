#!/usr/bin/env bash
# The test command of README.md, and all that CI runs (.ci/run calls it):
# the real peers the tests need (scripts/packages.txt, installed when
# missing if this runs as root with apt-get), static checks (gofmt, go vet,
# staticcheck at the version go.mod pins as a tool), the whole Go test suite
# under the race detector, bounded fuzzing of every parser, and the kTLS
# tests inside a real kernel.
#
# Environment: FUZZTIME (default 15s per fuzz target), and those of
# scripts/ktls-vm-test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

# step names a step and the time spent so far (CI must stay well under 20
# minutes on 2 cores).
step() { echo "== $* (${SECONDS}s)"; }

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
go vet ./...
GOOS=darwin go vet ./internal/ktls/ ./internal/usage/ ./server/
GOOS=windows go build ./...

step "staticcheck"
# The version is the one go.mod's tool line pins (go get -tool to change it).
go tool staticcheck ./...

step "go test -race"
# Every test runs once, under the race detector: the whole suite takes about
# 3 minutes so on 2 cores (40 s without it), well within CI's budget, and a
# second run without -race would only repeat the same tests.
# CI=1 makes a test that needs a real peer fail, not skip, when it is
# missing: every peer was installed above.
CI=1 go test -race -count=1 -timeout 20m ./...

step "fuzz (bounded)"
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
fuzz() {
	local pkg=$1 target=$2 out rc=0 before after
	before=$(reproducers "$pkg" "$target")
	out=$(go test -run '^$' -fuzz "^$target\$" -fuzztime "${FUZZTIME:-15s}" -fuzzminimizetime 2s "$pkg" 2>&1) || rc=$?
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
fuzz ./stats FuzzDecodeLatency
fuzz ./internal/ktls FuzzRecordConn
fuzz ./results FuzzDecode
fuzz ./report/html FuzzReport
fuzz ./keys FuzzParseClientHello
fuzz ./keys FuzzClientHelloFromRecords
fuzz ./probe FuzzWire
fuzz ./bulk FuzzParseSetup
fuzz ./bulk FuzzParseRound
fuzz ./bulk FuzzParseHTTPRequest
fuzz ./bulk FuzzParseHTTPResponse
fuzz ./server FuzzServeHTTP

step "kTLS in a VM"
scripts/ktls-vm-test.sh
step "all tests passed"
