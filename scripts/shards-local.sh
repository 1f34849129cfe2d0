#!/usr/bin/env bash
# A sharded run on this one machine, the way a Kubernetes Indexed Job runs
# one on many: one tlsbench serve on 127.0.0.1, N shard processes with a
# common --start-at, each writing its records to a file, then tlsbench
# merge joining them into one results file.
#
#   scripts/shards-local.sh N [RUN FLAGS...]
#   scripts/shards-local.sh 2
#   scripts/shards-local.sh 3 --tls 1.2,1.3 --resume off,on --concurrency 12 --duration 4s
#   scripts/shards-local.sh 2 --rate 400 --arrival poisson --duration 4s
#
# The run flags default to a small handshake matrix (TLS 1.3, full and
# resumed, a wave of 4, 2 s per case). The target, its CA and server name,
# the shard and the start time are the script's to set.
#
# Each shard is pinned with taskset to its own CPUs when the machine has at
# least one CPU per shard (the CPUs split evenly, the server left free to
# run anywhere); with fewer CPUs than shards they are not pinned and share
# the CPUs as the scheduler decides (on 2 CPUs, N=3 runs unpinned). Either
# way the server shares the machine with the shards: the figures show the
# mechanics of a sharded run, not a server's capacity.
#
# Environment:
#   TLSBENCH   the tlsbench binary (default: built from this tree)
#   SHARDS_DIR where the files go (default: a new temporary directory):
#              shard-I.jsonl and shard-I.log per shard, merged.jsonl,
#              server.log and the server's pki/
#   START_IN   seconds from now to the common start (default 3)
#
# Exit status: the merge's when it fails, else the worst shard's (1 when a
# case failed a gate: its record is still written and merged).
set -euo pipefail

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
	exit 2
}
[[ $# -ge 1 && $1 =~ ^[1-9][0-9]*$ ]] || usage
n=$1
shift
args=("$@")
if [[ ${#args[@]} -eq 0 ]]; then
	args=(--tls 1.3 --resume off,on --concurrency 4 --duration 2s --iterations 4 --warmup 1)
fi

here=$(cd "$(dirname "$0")/.." && pwd)
dir=${SHARDS_DIR:-$(mktemp -d)}
mkdir -p "$dir"
bin=${TLSBENCH:-}
pids=()
server_pid=
cleanup() {
	for p in "${pids[@]}" $server_pid; do
		kill "$p" 2>/dev/null || true
	done
	[[ -n ${built:-} ]] && rm -rf "$built"
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [[ -z $bin ]]; then
	built=$(mktemp -d)
	bin=$built/tlsbench
	(cd "$here" && go build -o "$bin" ./cmd/tlsbench)
fi

# The server: loopback only, a test PKI of its own, its address read from
# its first line.
"$bin" serve --listen 127.0.0.1:0 --pki-dir "$dir/pki" --log-level warn >"$dir/server.out" 2>"$dir/server.log" &
server_pid=$!
addr=
for _ in $(seq 300); do
	addr=$(sed -n 's/^listening on \([^ ]*\).*/\1/p' "$dir/server.out" 2>/dev/null || true)
	[[ -n $addr ]] && break
	kill -0 "$server_pid" 2>/dev/null || break
	sleep 0.1
done
if [[ -z $addr ]]; then
	echo "shards-local: the server did not start; see $dir/server.log:" >&2
	cat "$dir/server.log" >&2
	exit 1
fi

# The CPUs each shard is pinned to: an even split of those this process
# may use, when there is at least one per shard.
mapfile -t cpus < <(taskset -pc $$ 2>/dev/null | sed 's/.*: //' | tr ',' '\n' |
	awk -F- '{ if (NF == 2) { for (i = $1; i <= $2; i++) print i } else if ($1 != "") print $1 }')
per=0
if command -v taskset >/dev/null && [[ ${#cpus[@]} -ge $n ]]; then
	per=$((${#cpus[@]} / n))
else
	echo "shards-local: $n shards on ${#cpus[@]} CPU(s): not pinned, they share the CPUs" >&2
fi

start_in=${START_IN:-3}
at=$(date -u -d "@$(($(date +%s) + start_in))" +%Y-%m-%dT%H:%M:%SZ)
echo "shards-local: $n shards against $addr, starting at $at; files in $dir" >&2
for ((i = 0; i < n; i++)); do
	pin=()
	if [[ $per -gt 0 ]]; then
		set=$(
			IFS=,
			echo "${cpus[*]:$((i * per)):$per}"
		)
		pin=(taskset -c "$set")
		echo "shards-local: shard $i on CPU(s) $set" >&2
	fi
	"${pin[@]}" "$bin" run --shard "$i/$n" --start-at "$at" --target "$addr" --ca "$dir/pki/ca.pem" --sni localhost \
		"${args[@]}" --out - >"$dir/shard-$i.jsonl" 2>"$dir/shard-$i.log" &
	pids+=($!)
done

worst=0
for ((i = 0; i < n; i++)); do
	status=0
	wait "${pids[$i]}" || status=$?
	if [[ $status -ne 0 ]]; then
		echo "shards-local: shard $i exited $status; the end of $dir/shard-$i.log:" >&2
		tail -n 3 "$dir/shard-$i.log" >&2
	fi
	((status > worst)) && worst=$status
done
pids=()

files=()
for ((i = 0; i < n; i++)); do
	files+=("$dir/shard-$i.jsonl")
done
"$bin" merge "${files[@]}" -o "$dir/merged.jsonl"
echo "shards-local: merged $n shards into $dir/merged.jsonl" >&2
exit "$worst"
