#!/usr/bin/env bash
# Reproduces every figure of BENCHMARKS.md, one section per argument (all
# when none is given): results go to benchmarks/<section>.jsonl (or
# $BENCHMARKS_OUT) and the rendered tables to <section>.md. Needs openssl
# and nginx for the nginx section, squid-openssl for the proxy section, a
# JDK (java, javac, keytool) for the foreign and jsse-keymanager
# sections, valgrind for jsse-keymanager-counted, instructions and
# instructions-foreign (with gnutls-bin and nginx); .ci/run installs them.
# Load stays on 127.0.0.1. serverprofile (perf, as root) runs only when
# named.
#
#   scripts/benchmarks.sh                  # everything, about 2 hours
#   scripts/benchmarks.sh default harness  # some sections
set -euo pipefail
cd "$(dirname "$0")/.."
out=${BENCHMARKS_OUT:-benchmarks}
mkdir -p "$out"
bin=$(mktemp -d)/tlsbench
work=$(mktemp -d)
cleanup() {
	[[ -n "${nginx_pid:-}" ]] && kill "$nginx_pid" 2>/dev/null
	[[ -n "${serve_pid:-}" ]] && kill "$serve_pid" 2>/dev/null
	[[ -n "${serve2_pid:-}" ]] && kill "$serve2_pid" 2>/dev/null
	[[ -n "${jsse_pa:-}" ]] && kill "$jsse_pa" "$jsse_pb" 2>/dev/null
	[[ -n "${squid_dir:-}" ]] && scripts/squid-bump.sh stop "$squid_port" "$squid_dir" && rm -rf "$squid_dir"
	rm -rf "$work" "$(dirname "$bin")"
}
trap cleanup EXIT
go build -o "$bin" ./cmd/tlsbench

run() { # run NAME ARGS...: a tlsbench run saved as JSON lines and markdown
	local name=$1
	shift
	echo "== $name: tlsbench run $*" >&2
	"$bin" run "$@" --out "$out/$name.jsonl" --format markdown >"$out/$name.md"
}

section_default() { run default; }

section_harness() {
	echo "== harness: BenchmarkClientHandshakeCost" >&2
	go test ./loadgen -run '^$' -bench ClientHandshakeCost -benchtime 20x -count 6 | tee "$out/harness.txt"
}

section_mutual() { run mutual --mutual --client-identities 8; }

section_groups() {
	run groups --tls 1.3 --groups x25519,x25519mlkem768 --concurrency 1,64
}

section_transport() {
	run transport --tls 1.3 --groups x25519 --concurrency 1,64 --transport tcp,memory
}

section_transports() {
	run transports --tls 1.3 --groups x25519 --concurrency 8 --transport tcp4,tcp6,memory
}

section_ciphers() {
	run ciphers --tls 1.2 --cipher aes128gcm,chacha20poly1305 --resume off,on --concurrency 8
}

section_keycache() {
	local pw=$work/p12-password
	echo "benchmark password" >"$pw"
	"$bin" pki init --dir "$work/pki" --server-keys ecdsa-p256 --p12-password-file "$pw" >/dev/null
	run keycache --identity "$work/pki/server-ecdsa-p256.p12" --p12-password-file "$pw" \
		--key-cache on,off --concurrency 1,8
	echo "== keycache: selection overhead" >&2
	go test ./keys -run '^$' -bench 'SelectionOverhead' -count 5 | tee "$out/selection.txt"
}

# free_port prints a TCP port free on 127.0.0.1.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# nginx_conf DIR PORT CERT KEY MAIN SERVER writes DIR/nginx.conf: one
# worker serving "ok" over TLS on 127.0.0.1:PORT with CERT and KEY,
# tickets and a shared session cache, its files in DIR (DIR/tmp made
# here); MAIN and SERVER are more directives for the main and the server
# blocks ("" for none).
nginx_conf() {
	local dir=$1 port=$2 cert=$3 key=$4 main=$5 server=$6
	mkdir -p "$dir/tmp"
	cat >"$dir/nginx.conf" <<EOF
$main
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $dir/tmp;
    proxy_temp_path $dir/tmp;
    fastcgi_temp_path $dir/tmp;
    uwsgi_temp_path $dir/tmp;
    scgi_temp_path $dir/tmp;
    server {
        listen 127.0.0.1:$port ssl;
        ssl_certificate $cert;
        ssl_certificate_key $key;
        $server
        ssl_session_tickets on;
        ssl_session_cache shared:SSL:10m;
        location / { return 200 "ok\n"; }
    }
}
EOF
}

# start_nginx starts nginx (1 worker, ECDSA P-256, tickets and a shared
# session cache) on a free loopback port; nginx_target holds the flags
# that measure it.
start_nginx() {
	[[ -d "$work/npki" ]] || "$bin" pki init --dir "$work/npki" --server-keys ecdsa-p256 >/dev/null
	local port
	port=$(free_port)
	nginx_conf "$work/nginx" "$port" "$work/npki/server-ecdsa-p256.pem" "$work/npki/server-ecdsa-p256-key.pem" "" \
		"ssl_protocols TLSv1.2 TLSv1.3;"
	nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -g 'daemon off;' &
	nginx_pid=$!
	for _ in $(seq 50); do (echo >/dev/tcp/127.0.0.1/"$port") 2>/dev/null && break; sleep 0.1; done
	nginx_target=(--target "127.0.0.1:$port" --sni localhost --ca "$work/npki/ca.pem" --alpn http/1.1 --server-pid "$nginx_pid")
}

stop_nginx() {
	kill "$nginx_pid"
	wait "$nginx_pid" 2>/dev/null || true
	nginx_pid=
}

section_nginx() {
	start_nginx
	# nginx and the built-in server under the same load, one after the
	# other in this run; compare pairs the cases by name. TLS 1.3 uses
	# X25519 on both (nginx's OpenSSL 3.0 has no ML-KEM, Go's default);
	# TLS 1.2 keeps the default groups, since OpenSSL refuses an ECDSA
	# P-256 certificate to a TLS 1.2 client that does not offer P-256.
	run nginx-tls12 "${nginx_target[@]}" --tls 1.2
	run nginx-tls13 "${nginx_target[@]}" --tls 1.3 --groups x25519
	stop_nginx
	run builtin-tls12 --tls 1.2
	run builtin-tls13 --tls 1.3 --groups x25519
	cat "$out/nginx-tls12.jsonl" "$out/nginx-tls13.jsonl" >"$out/nginx.jsonl"
	cat "$out/builtin-tls12.jsonl" "$out/builtin-tls13.jsonl" >"$out/builtin-vs-nginx.jsonl"
	rm "$out"/{nginx,builtin}-tls1[23].{jsonl,md}
	"$bin" report --format markdown "$out/nginx.jsonl" >"$out/nginx.md"
	"$bin" report --format markdown "$out/builtin-vs-nginx.jsonl" >"$out/builtin-vs-nginx.md"
	"$bin" compare "$out/nginx.jsonl" "$out/builtin-vs-nginx.jsonl" --format markdown >"$out/builtin-vs-nginx-compare.md"
}

# free_port prints a TCP port of 127.0.0.1 that was free a moment ago.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# wait_port PORT waits until something accepts on 127.0.0.1:PORT.
wait_port() { for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return; sleep 0.1; done; }

section_foreign() {
	# The default matrix against servers nobody here wrote, as a user
	# runs it: --target and --ca and nothing else but --server-pid, so
	# that each server's CPU is read from /proc. nginx (tickets and a
	# shared session cache), gnutls-serv --http and a JSSE (Java 17)
	# HTTPS server, which leaves Nagle's algorithm on as Java's sockets
	# do, with the same ECDSA P-256 identity.
	start_nginx
	run foreign-nginx --target "${nginx_target[1]}" --ca "$work/npki/ca.pem" --server-pid "$nginx_pid" || true
	stop_nginx
	local port pid classes
	port=$(free_port)
	gnutls-serv --quiet --http --disable-client-cert --port "$port" \
		--x509certfile "$work/npki/server-ecdsa-p256.pem" --x509keyfile "$work/npki/server-ecdsa-p256-key.pem" >"$work/gnutls.log" 2>&1 &
	pid=$!
	wait_port "$port"
	# gnutls-serv listens with a backlog of 10: at concurrency 64 and 128
	# its listen queue overflows and cases fail, which is the result.
	run foreign-gnutls --target "127.0.0.1:$port" --ca "$work/npki/ca.pem" --server-pid "$pid" || true
	kill "$pid"; wait "$pid" 2>/dev/null || true
	classes=$work/jsse
	mkdir -p "$classes"
	javac -d "$classes" internal/peers/jsse/JSSEServer.java
	openssl pkcs12 -export -in "$work/npki/server-ecdsa-p256.pem" -inkey "$work/npki/server-ecdsa-p256-key.pem" \
		-out "$classes/server.p12" -passout pass:benchmark
	java -XX:+UseSerialGC -cp "$classes" JSSEServer "$classes/server.p12" benchmark http SunX509 default false >"$work/jsse.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do grep -q '^ACCEPT' "$work/jsse.log" && break; sleep 0.1; done
	port=$(sed -n 's/^ACCEPT 127.0.0.1://p' "$work/jsse.log")
	run foreign-jsse --target "127.0.0.1:$port" --ca "$work/npki/ca.pem" --server-pid "$pid" || true
	kill "$pid"; wait "$pid" 2>/dev/null || true
}

# start_jsse VAR KEYSTORE KEYMANAGER: starts the JSSE server (echo, Nagle
# on, tickets on) of $work/jsse with the PKCS#12 KEYSTORE (password
# "benchmark") and KEYMANAGER (SunX509 or PKIX), sets VAR to its PID and
# jsse_port to its port.
start_jsse() {
	local var=$1 log=$work/jsse-$1.log
	java -XX:+UseSerialGC -cp "$work/jsse" JSSEServer "$2" benchmark echo "$3" default false >"$log" 2>&1 &
	printf -v "$var" '%s' "$!"
	for _ in $(seq 100); do grep -q '^ACCEPT' "$log" && break; sleep 0.1; done
	jsse_port=$(sed -n 's/^ACCEPT 127.0.0.1://p' "$log")
}

# keymanager_summary FILE...: per case of the interleaved runs (FILE.jsonl
# each, beside FILE.compare.json, tlsbench compare's JSON of it), the CPU
# per handshake of side b over side a's, server and client, from the
# records (server_cpu_us, client_cpu_us): the median over the runs and
# each run's; then each run's verdicts of compare on the time per
# handshake and on each end's CPU.
keymanager_summary() {
	python3 -c '
import json, statistics, sys
names, runs, verdicts = [], [], []
def verdict(m):
    return "%s %+.0f%%" % (m["verdict"], 100 * m["change"]) if m.get("change") is not None else m["verdict"]
for f in sys.argv[1:]:
    recs = {}
    for line in open(f + ".jsonl"):
        r = json.loads(line)
        if r.get("kind") == "handshake" and r.get("side") in ("a", "b"):
            recs.setdefault(r["name"], {})[r["side"]] = r
            if r["name"] not in names:
                names.append(r["name"])
    runs.append(recs)
    v = {}
    for c in json.load(open(f + ".compare.json"))["cases"]:
        v[c["name"]] = {"time": verdict(c)}
        for m in c.get("metrics", []):
            v[c["name"]][m["metric"]] = verdict(m)
    verdicts.append(v)
print("case\tserver CPU b/a: median (per run)\tclient CPU b/a: median (per run)\tserver CPU us/hs a, b (medians)")
for n in names:
    srv, cli, sa, sb = [], [], [], []
    for recs in runs:
        a, b = recs.get(n, {}).get("a"), recs.get(n, {}).get("b")
        if a and b and a.get("server_cpu_us") and a.get("client_cpu_us"):
            srv.append(b["server_cpu_us"] / a["server_cpu_us"])
            cli.append(b["client_cpu_us"] / a["client_cpu_us"])
            sa.append(a["server_cpu_us"])
            sb.append(b["server_cpu_us"])
    if not srv:
        print("%s\tno CPU figures" % n)
        continue
    f = lambda v: " ".join("%.2f" % x for x in v)
    print("%s\t%.2fx (%s)\t%.2fx (%s)\t%.0f, %.0f" % (n, statistics.median(srv), f(srv), statistics.median(cli), f(cli),
        statistics.median(sa), statistics.median(sb)))
    for what in ("time", "server-cpu", "client-cpu"):
        print("  compare, %s, per run: %s" % (what, "; ".join(v.get(n, {}).get(what, "-") for v in verdicts)))' "$@"
}

# jsse_keystores compiles the JSSE server into $work/jsse and writes the
# two key stores of its ECDSA P-256 identity there: openssl.p12 (openssl
# pkcs12 -export, 2,048 PBKDF2 iterations) and keytool.p12 (keytool
# -importkeystore of it, 10,000), password "benchmark".
jsse_keystores() {
	[[ -d "$work/kpki" ]] || "$bin" pki init --dir "$work/kpki" --server-keys ecdsa-p256 >/dev/null
	[[ ! -f "$work/jsse/keytool.p12" ]] || return 0
	mkdir -p "$work/jsse"
	javac -d "$work/jsse" internal/peers/jsse/JSSEServer.java
	openssl pkcs12 -export -iter 2048 -in "$work/kpki/server-ecdsa-p256.pem" -inkey "$work/kpki/server-ecdsa-p256-key.pem" \
		-name server -out "$work/jsse/openssl.p12" -passout pass:benchmark
	keytool -importkeystore -noprompt -srckeystore "$work/jsse/openssl.p12" -srcstoretype PKCS12 -srcstorepass benchmark \
		-destkeystore "$work/jsse/keytool.p12" -deststoretype PKCS12 -deststorepass benchmark >/dev/null
}

section_jsse-keymanager() {
	# The JDK's key managers as the two sides of interleaved runs: Java
	# TLS servers (JSSE, Java 17) with the same ECDSA P-256 PKCS#12 key
	# store, side a through SunX509 (the key decrypted once), side b
	# through PKIX (the key read from the key store, decrypting it, on
	# every full handshake). Two key stores: OpenSSL's (pkcs12 -export,
	# 2,048 PBKDF2 iterations) and keytool's (-importkeystore of it,
	# 10,000). Each pair is warmed by a run thrown away (Java compiles its
	# hot code as it runs), then measured five times. The servers leave
	# Nagle on, as Java's sockets do: time per handshake is set by the
	# stalls that makes, each end's CPU (from /proc) by the key manager.
	jsse_keystores
	local runs=${KEYMANAGER_RUNS:-5} ks i a b name files
	local load=(--sni localhost --ca "$work/kpki/ca.pem" --request ping --tls 1.2,1.3 --resume off,on --concurrency 8)
	{
		echo "# load before: $(uptime)"
		for ks in openssl keytool; do
			start_jsse jsse_pa "$work/jsse/$ks.p12" SunX509
			a=$jsse_port
			start_jsse jsse_pb "$work/jsse/$ks.p12" PKIX
			b=$jsse_port
			local sides=(--target "127.0.0.1:$a" --server-pid "$jsse_pa" --versus "127.0.0.1:$b" --versus-pid "$jsse_pb")
			echo "== jsse-keymanager $ks: warming both servers" >&2
			"$bin" run "${sides[@]}" "${load[@]}" --handshakes 64 --iterations 6 --warmup 2 --out "$work/warm.jsonl" --format json >/dev/null
			files=()
			for ((i = 1; i <= runs; i++)); do
				name=jsse-keymanager-$ks-$i
				run "$name" "${sides[@]}" "${load[@]}" --handshakes 64 --iterations 10 --warmup 2
				"$bin" compare --format json "$out/$name.jsonl" >"$work/$name.compare.json" || true
				cp "$out/$name.jsonl" "$work/$name.jsonl"
				rm "$out/$name".{jsonl,md}
				files+=("$work/$name")
			done
			kill "$jsse_pa" "$jsse_pb"
			wait "$jsse_pa" "$jsse_pb" 2>/dev/null || true
			jsse_pa= jsse_pb=
			echo "# $ks key store ($(openssl pkcs12 -info -noout -in "$work/jsse/$ks.p12" -passin pass:benchmark 2>&1 | sed -n 's/^Shrouded Keybag: //p')), $runs runs"
			keymanager_summary "${files[@]}"
			cat "${files[@]/%/.jsonl}" >"$out/jsse-keymanager-$ks.jsonl"
			"$bin" compare --format markdown "$out/jsse-keymanager-$ks.jsonl" >"$out/jsse-keymanager-$ks-compare.md" || true
		done
		echo "# load after: $(uptime)"
	} >"$out/jsse-keymanager.txt" # not through a pipe: the servers' pids stay this shell's, for cleanup
	cat "$out/jsse-keymanager.txt"
}

section_jsse-keymanager-counted() {
	# The same two key managers with the client counted under callgrind
	# (--count instructions), each JSSE server's CPU from /proc: one run
	# per key store, 256 handshakes an iteration so that the resumed
	# cases' server CPU is resolved too. The client, 50 times slower
	# under callgrind, sets the time per handshake: the verdicts to read
	# are each end's CPU and the client's instructions.
	jsse_keystores
	local ks a b
	for ks in openssl keytool; do
		start_jsse jsse_pa "$work/jsse/$ks.p12" SunX509
		a=$jsse_port
		start_jsse jsse_pb "$work/jsse/$ks.p12" PKIX
		b=$jsse_port
		local sides=(--target "127.0.0.1:$a" --server-pid "$jsse_pa" --versus "127.0.0.1:$b" --versus-pid "$jsse_pb"
			--sni localhost --ca "$work/kpki/ca.pem" --request ping --tls 1.2,1.3 --resume off,on --concurrency 8)
		echo "== jsse-keymanager-counted $ks: warming both servers" >&2
		"$bin" run "${sides[@]}" --handshakes 64 --iterations 6 --warmup 2 --out "$work/warm.jsonl" --format json >/dev/null
		SECONDS=0
		run "jsse-keymanager-counted-$ks" "${sides[@]}" --count instructions --handshakes 256 --iterations 10 --warmup 2
		echo "# jsse-keymanager-counted $ks: ${SECONDS}s" >>"$out/jsse-keymanager-counted-$ks.md"
		kill "$jsse_pa" "$jsse_pb"
		wait "$jsse_pa" "$jsse_pb" 2>/dev/null || true
		jsse_pa= jsse_pb=
	done
}

section_cpu-aa() {
	# Per-end CPU verdicts on no change: three A/A runs of the built-in
	# server, one after the other (tlsbench compare FILE judges each).
	local i
	for i in 1 2 3; do
		run "cpu-aa-$i" --tls 1.2,1.3 --resume off,on --concurrency 1,8 --versus-self
	done
}

section_instructions() {
	# Instruction counts under callgrind (the built-in servers of both
	# sides and the client): three A/A runs; a server built to spend
	# about 1% more per handshake (the tag tlsbench_extrawork) as side b;
	# the default matrix counted, with how long it takes.
	local i
	for i in ${INSTRUCTIONS_AA_RUNS:-1 2 3}; do
		run "instructions-aa-$i" --count instructions --tls 1.3 --resume off,on --concurrency 1,8 --versus-self
	done
	go build -tags tlsbench_extrawork -o "$work/tlsbench-extrawork" ./cmd/tlsbench
	run instructions-extrawork --count instructions --tls 1.3 --resume off,on --concurrency 1 \
		--versus-server "$work/tlsbench-extrawork"
	SECONDS=0
	run instructions-default --count instructions
	echo "# instructions-default: ${SECONDS}s" >>"$out/instructions-default.md"
}

section_instructions-foreign() {
	# Servers nobody here wrote, started by tlsbench under callgrind and
	# counted from outside: OpenSSL's s_server (side a) against GnuTLS's
	# gnutls-serv (side b) on one self-signed P-256 certificate; then
	# nginx, its worker kept as the user tlsbench runs as (a worker that
	# changes its user cannot be counted).
	local dir=$work/foreign-count a b
	mkdir -p "$dir"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$dir/k.pem" -out "$dir/c.pem" \
		-days 30 -subj /CN=localhost 2>/dev/null
	a=$(free_port) b=$(free_port)
	run instructions-openssl-gnutls --count instructions --tls 1.2,1.3 --resume off,on --concurrency 1 --insecure \
		--target "127.0.0.1:$a" --server-cmd "openssl s_server -quiet -accept 127.0.0.1:$a -cert $dir/c.pem -key $dir/k.pem -www" \
		--versus "127.0.0.1:$b" --versus-cmd "gnutls-serv --http --x509certfile $dir/c.pem --x509keyfile $dir/k.pem --port $b"
	a=$(free_port)
	nginx_conf "$dir" "$a" "$dir/c.pem" "$dir/k.pem" "user $(id -un);" ""
	run instructions-nginx --count instructions --tls 1.2 --resume off,on --concurrency 1 --iterations 4 --insecure \
		--target "127.0.0.1:$a" --server-cmd "nginx -p $dir -c $dir/nginx.conf -g 'daemon off;'"
}

section_server() {
	# nginx and tlsbench serve (the built-in server on its own, with the
	# same ECDSA P-256 identity) as the two sides of one interleaved run:
	# the same client load alternates between them round by round, both
	# answer the same HTTP request, and each one's CPU comes from /proc.
	start_nginx
	local port
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	"$bin" serve --listen "127.0.0.1:$port" --log-level warn \
		--identity "$work/npki/server-ecdsa-p256.pem,$work/npki/server-ecdsa-p256-key.pem" >"$work/serve.log" 2>&1 &
	serve_pid=$!
	for _ in $(seq 50); do (echo >/dev/tcp/127.0.0.1/"$port") 2>/dev/null && break; sleep 0.1; done
	local versus=(--versus "127.0.0.1:$port" --versus-pid "$serve_pid")
	run server-tls12 "${nginx_target[@]}" "${versus[@]}" --tls 1.2 --concurrency 1,64
	run server-tls13 "${nginx_target[@]}" "${versus[@]}" --tls 1.3 --groups x25519 --concurrency 1,64
	kill "$serve_pid"
	wait "$serve_pid" 2>/dev/null || true
	serve_pid=
	stop_nginx
	cat "$out/server-tls12.jsonl" "$out/server-tls13.jsonl" >"$out/server.jsonl"
	rm "$out"/server-tls1[23].{jsonl,md}
	"$bin" report --format markdown "$out/server.jsonl" >"$out/server.md"
	"$bin" compare "$out/server.jsonl" --format markdown >"$out/server-compare.md" || true
	go test ./server -run '^$' -bench ServerOverhead -count 3 | tee "$out/server-floor.txt"
}

# start_serve VAR ENV...: starts tlsbench serve with the environment ENV
# (GOMAXPROCS=1, say) on a free loopback port with the identity of
# $work/npki, sets VAR to its PID and serve_port to its port.
start_serve() {
	local var=$1
	shift
	[[ -d "$work/npki" ]] || "$bin" pki init --dir "$work/npki" --server-keys ecdsa-p256 >/dev/null
	serve_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	env "$@" "$bin" serve --listen "127.0.0.1:$serve_port" --log-level warn \
		--identity "$work/npki/server-ecdsa-p256.pem,$work/npki/server-ecdsa-p256-key.pem" >"$work/serve-$var.log" 2>&1 &
	printf -v "$var" '%s' "$!"
	for _ in $(seq 50); do (echo >/dev/tcp/127.0.0.1/"$serve_port") 2>/dev/null && break; sleep 0.1; done
}

section_procs() {
	# tlsbench serve with one processor (side a) and with two (side b),
	# the same load alternating between them round by round from a
	# separate tlsbench run process: what a second CPU buys the server.
	# On a 2-core machine the load generator needs CPU too, so side b
	# shares its second CPU with the client: the figures say how much.
	start_serve serve_pid GOMAXPROCS=1
	local a=$serve_port
	start_serve serve2_pid GOMAXPROCS=2
	local b=$serve_port
	run procs --target "127.0.0.1:$a" --server-pid "$serve_pid" --versus "127.0.0.1:$b" --versus-pid "$serve2_pid" \
		--sni localhost --ca "$work/npki/ca.pem" --request ping \
		--tls 1.2,1.3 --resume off,on --concurrency 64,128
	"$bin" compare "$out/procs.jsonl" --format markdown >"$out/procs-compare.md" || true
	kill "$serve_pid" "$serve2_pid"
	wait "$serve_pid" "$serve2_pid" 2>/dev/null || true
	serve_pid= serve2_pid=
}

section_serverprofile() {
	# Where the built-in server's CPU goes: perf record -g on the child
	# server of a tlsbench run making full TLS 1.3 handshakes (X25519,
	# the default ECDSA P-256 key), 16 at a time, for 15 s of its
	# measured part; the samples are then sorted by symbol into the
	# cryptography, the kernel, Go's runtime and the rest. Needs perf and
	# the right to profile a process (root, or kernel.perf_event_paranoid
	# at most 1).
	local pid child data=$work/server.perf
	echo "== serverprofile: perf record -g on the child server" >&2
	"$bin" run --tls 1.3 --resume off --groups x25519 --concurrency 16 --duration 25s --iterations 5 --warmup 1 \
		--out "$work/serverprofile.jsonl" >/dev/null &
	pid=$!
	sleep 8 # the child started, the warm-up window over
	child=$(pgrep -P "$pid" | head -1)
	perf record -g -p "$child" -o "$data" -- sleep 15
	wait "$pid" || true
	perf report -i "$data" --no-children --sort dso,sym --stdio -g none 2>/dev/null | python3 -c '
import collections, re, sys
parts, rest = collections.Counter(), collections.Counter()
for line in sys.stdin:
    m = re.match(r"\s+([\d.]+)%\s+(\S+)\s+\[(.)\]\s+(.*)$", line)
    if not m:
        continue
    pct, dso, kind, sym = float(m[1]), m[2], m[3], m[4].strip()
    if kind == "k" or dso.startswith("[kernel"):
        part = "kernel"
    elif sym.startswith("crypto/") and not sym.startswith("crypto/tls.") or sym.startswith("p256"):
        part = "cryptography"
    elif sym.startswith(("runtime.", "internal/runtime/")):
        part = "Go runtime"
    else:
        part = "the rest (crypto/tls protocol, net, the server)"
        rest[sym] += pct
    parts[part] += pct
for part, pct in parts.most_common():
    print("%5.1f%%  %s" % (pct, part))
print("largest of the rest:")
for sym, pct in rest.most_common(10):
    print("%5.1f%%  %s" % (pct, sym))' | tee "$out/server-perf.txt"
}

section_quic() {
	# TCP and QUIC handshakes against the built-in server, TLS 1.3, full,
	# resumed and resumed with the request as early data (0-RTT, QUIC
	# only: Go's TLS over TCP has none), X25519 and X25519MLKEM768, at
	# concurrency 1 and 64; one run per transport, as early data is
	# refused in a plan that has TCP cases.
	run quic-tcp --tls 1.3 --transport tcp --resume off,on --groups x25519,x25519mlkem768 --concurrency 1,64
	run quic-quic --tls 1.3 --transport quic --resume off,on --early-data off,on --groups x25519,x25519mlkem768 --concurrency 1,64
	cat "$out/quic-tcp.jsonl" "$out/quic-quic.jsonl" >"$out/quic.jsonl"
	rm "$out"/quic-{tcp,quic}.{jsonl,md}
	"$bin" report --format markdown "$out/quic.jsonl" >"$out/quic.md"
}

section_throughput() {
	run throughput --mode throughput --tls 1.2,1.3 --cipher aes128gcm,aes256gcm,chacha20poly1305 \
		--buffer 4k,16k,64k --ktls off --bytes 64MiB --iterations 5
}

section_proxy() {
	# The built-in proxy and Squid's SSL bump relaying the same downloads
	# from the built-in server, one after the other in this run: HTTP GETs
	# (the form Squid parses), one connection, TLS 1.3 AES-128-GCM on the
	# client leg. Squid verifies the server with the CA of --identity; its
	# CPU (with its helpers) is sampled from /proc, the built-in proxy's is
	# its own child process's.
	"$bin" pki init --dir "$work/ppki" --server-keys ecdsa-p256 >/dev/null
	local sq port
	sq=$(mktemp -d /tmp/tlsbench-squid.XXXXXX) # Squid's user must reach it
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	squid_pid=$(scripts/squid-bump.sh start "$port" "$sq" "$work/ppki/ca.pem")
	squid_dir=$sq squid_port=$port
	local load=(--mode throughput --tls 1.3 --cipher aes128gcm --buffer 4k,16k,64k --request http
		--ktls off --bytes 256MiB --iterations 5 --warmup 1 --case-time 60s
		--identity "$work/ppki/server-ecdsa-p256.pem,$work/ppki/server-ecdsa-p256-key.pem")
	run proxy-squid "${load[@]}" --proxy "http://127.0.0.1:$port" --proxy-ca "$sq/ca.pem" --proxy-pid "$squid_pid"
	run proxy-builtin "${load[@]}" --proxy builtin --read-fill off,on
	scripts/squid-bump.sh stop "$port" "$sq"
	rm -rf "$sq"
	squid_pid= squid_dir=
	cat "$out/proxy-squid.jsonl" "$out/proxy-builtin.jsonl" >"$out/proxy.jsonl"
	rm "$out"/proxy-{squid,builtin}.{jsonl,md}
	"$bin" report --format markdown "$out/proxy.jsonl" >"$out/proxy.md"
}

# verdicts FILE...: the verdict of every case of a comparison's JSON, one
# "name<TAB>verdict" line each.
verdicts() {
	python3 -c '
import json, sys
for f in sys.argv[1:]:
    for c in json.load(open(f))["cases"]:
        print(c["name"] + "\t" + c["verdict"])' "$@"
}

# precision LABEL FILE...: of the cases at concurrency 8 or more, how many
# stopped because they reached their target error, and the spread of the
# relative errors reached (99.9% half-width over the mean).
precision() {
	local label=$1
	shift
	python3 -c '
import json, sys
label, files = sys.argv[1], sys.argv[2:]
n = hit = 0
errs = []
for f in files:
    for line in open(f):
        r = json.loads(line)
        if r.get("kind") != "handshake" or r.get("concurrency", 0) < 8:
            continue
        n += 1
        hit += r.get("stopped_by") == "target-error"
        errs.append(100 * r["error_us"] / r["mean_us"])
errs.sort()
print("%s\t%d of %d reached 2%%; relative error min %.1f%%, median %.1f%%, max %.1f%%" % (
    label, hit, n, errs[0], errs[len(errs) // 2], errs[-1]))' "$label" "$@"
}

section_calibration() {
	# A/A: nothing changes between the two sides, so every case called
	# faster or slower is a false alarm. Measured both ways over the
	# default matrix, repeated: two sequential runs compared (Mann-Whitney,
	# with no floor as before, and with the default 2% floor), and one
	# interleaved run against itself (paired test and floor).
	local reps=${CALIBRATION_REPS:-5} cal=$out/calibration i
	mkdir -p "$cal"
	rm -f "$cal"/*.jsonl "$cal"/*.json
	for ((i = 1; i <= reps; i++)); do
		echo "== calibration $i/$reps: two sequential runs" >&2
		"$bin" run --out "$cal/seq-$i-a.jsonl" --format json >/dev/null
		"$bin" run --out "$cal/seq-$i-b.jsonl" --format json >/dev/null
		"$bin" compare --format json --min-effect 0% "$cal/seq-$i-a.jsonl" "$cal/seq-$i-b.jsonl" >"$cal/seq-$i-nofloor.json"
		"$bin" compare --format json "$cal/seq-$i-a.jsonl" "$cal/seq-$i-b.jsonl" >"$cal/seq-$i-floor.json"
		echo "== calibration $i/$reps: one interleaved run, --versus-self" >&2
		"$bin" run --versus-self --out "$cal/aa-$i.jsonl" --format json >/dev/null
		"$bin" compare --format json "$cal/aa-$i.jsonl" >"$cal/aa-$i.json"
		echo "== calibration $i/$reps: one quick interleaved run, --versus-self --quick" >&2
		"$bin" run --versus-self --quick --out "$cal/aaq-$i.jsonl" --format json >/dev/null
		"$bin" compare --format json "$cal/aaq-$i.jsonl" >"$cal/aaq-$i.json"
	done
	# Precision: how many cases reached the default 2% target error within
	# the default case time, and within 10 s.
	echo "== calibration: one run with --case-time 10s" >&2
	"$bin" run --case-time 10s --out "$cal/precision-10s.jsonl" --format json >/dev/null
	# A real A/B: side b decrypts its PKCS#12 key on every full handshake.
	local pw=$work/p12-password
	echo "benchmark password" >"$pw"
	"$bin" pki init --dir "$work/cpki" --server-keys ecdsa-p256 --p12-password-file "$pw" >/dev/null
	echo "== calibration: A/B, side b with key-cache=off" >&2
	"$bin" run --versus-self --versus-set key-cache=off --identity "$work/cpki/server-ecdsa-p256.p12" \
		--p12-password-file "$pw" --out "$cal/keycache-ab.jsonl" --format json >/dev/null
	"$bin" compare --format json "$cal/keycache-ab.jsonl" >"$cal/keycache-ab.json"
	"$bin" compare --format markdown "$cal/keycache-ab.jsonl" >"$cal/keycache-ab.md"
	{
		echo "# A/A false alarms over the default matrix, $reps repetitions"
		for kind in seq-nofloor seq-floor aa aaq; do
			local files=() f
			for ((i = 1; i <= reps; i++)); do
				case $kind in
				aa) f=$cal/aa-$i.json ;;
				aaq) f=$cal/aaq-$i.json ;;
				*) f=$cal/seq-$i-${kind#seq-}.json ;;
				esac
				files+=("$f")
			done
			verdicts "${files[@]}" | awk -F'\t' -v k="$kind" '
				{ n++ } $2 == "faster" || $2 == "slower" { flagged++ }
				END { printf "%s\t%d of %d case comparisons flagged (%.1f%%)\n", k, flagged, n, 100 * flagged / n }'
		done
		echo "# Target error 2%: cases at concurrency >= 8 that reached it (stopped_by target-error)"
		precision "default case time (3 s)" "$cal"/seq-*.jsonl
		precision "--case-time 10s" "$cal/precision-10s.jsonl"
		echo "# A/B, side b with key-cache=off"
		verdicts "$cal/keycache-ab.json"
	} | tee "$out/calibration.txt"
}

# replay_targets replays the measured iterations of each handshake case
# of the given files through the stopping rule of a case measured towards
# a target error (at least 20 iterations, then the 99.9% half-width at
# most the target): how many cases reach 2, 3, 5, 8 and 10% within the
# iterations they measured, beside other load (other_cpu_share 10% or
# more) and without. Exact for files measured towards 2% or less, whose
# cases kept measuring until 2% or the case time.
replay_targets() {
	python3 - "$@" <<'EOF'
import json, math, sys

def tpdf(x, df):
    return math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
                    - (df + 1) / 2 * math.log1p(x * x / df))

quantiles = {}
def t999(df):
    # two-sided 99.9%: the x with P(T > x) = 0.0005 (Simpson's rule, bisection)
    if df not in quantiles:
        def upper(x, steps=2000):
            h = x / steps
            s = tpdf(0, df) + tpdf(x, df) + sum((4 if i % 2 else 2) * tpdf(i * h, df) for i in range(1, steps))
            return 0.5 - s * h / 3
        lo, hi = 0.0, 700.0
        for _ in range(50):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if upper(mid) > 0.0005 else (lo, mid)
        quantiles[df] = lo
    return quantiles[df]

def errors(x):
    # the relative error after each number n >= 2 of iterations
    s = ss = 0.0
    out = {}
    for n, v in enumerate(x, 1):
        s += v
        ss += v * v
        if n >= 2:
            m = s / n
            out[n] = t999(n - 1) * math.sqrt(max(ss - n * m * m, 0) / (n - 1) / n) / m
    return out

groups = {"all": [], "quiet": [], "other load": []}
for f in sys.argv[1:]:
    for line in open(f):
        r = json.loads(line)
        if r.get("kind") != "handshake" or r.get("iterations", 0) < 2:
            continue
        e = errors(r.get("handshake_samples_us") or r["samples_us"])
        groups["all"].append(e)
        groups["other load" if (r.get("other_cpu_share") or 0) >= 0.1 else "quiet"].append(e)
for name, recs in groups.items():
    if recs:
        cells = ["%g%%: %d" % (100 * t, sum(any(v <= t for n, v in e.items() if n >= 20) for e in recs))
                 for t in (0.02, 0.03, 0.05, 0.08, 0.10)]
        print("%s (%d cases) reaching %s" % (name, len(recs), ", ".join(cells)))
EOF
}

section_stoprule() {
	# The default stopping rule. Runs towards 2% (which hardly a case
	# reaches here, so each measures its whole case time) replayed for
	# wider targets, with the calibration section's sequential runs when
	# they are there; then runs with every default, timed, each with the
	# report's last line: how many cases reached the default target.
	local full=${STOPRULE_REPS:-7} runs=${STOPRULE_DEFAULT_REPS:-3} dir=$out/stoprule i start
	mkdir -p "$dir"
	rm -f "$dir"/*.jsonl "$dir"/*.txt
	for ((i = 1; i <= full; i++)); do
		echo "== stoprule $i/$full: tlsbench run --target-error 2%" >&2
		# A case may fail a gate under load (exit 1): its record is kept.
		"$bin" run --target-error 2% --out "$dir/full-$i.jsonl" --format json >/dev/null || true
	done
	{
		echo "# replayed: runs towards 2%, each case its whole case time"
		replay_targets "$dir"/full-*.jsonl
		if compgen -G "$out/calibration/seq-*.jsonl" >/dev/null; then
			echo "# replayed: the calibration section's sequential runs"
			replay_targets "$out"/calibration/seq-*.jsonl
		fi
		echo "# tlsbench run, every setting its default"
		for ((i = 1; i <= runs; i++)); do
			echo "== stoprule default $i/$runs: tlsbench run" >&2
			start=$(date +%s%N)
			"$bin" run --out "$dir/default-$i.jsonl" >"$dir/default-$i.txt" || true
			printf 'run %d: %d s; %s\n' "$i" $((($(date +%s%N) - start) / 1000000000)) "$(tail -n 1 "$dir/default-$i.txt")"
		done
	} | tee "$out/stoprule.txt"
}

section_stall() {
	# The built-in server stalls for 1 s (SIGSTOP, then SIGCONT, on its
	# process) in the middle of a measured case: open loop (200 starts a
	# second, at most 100 open) and closed loop (one connection at a
	# time), the same stall in each.
	local kind args pid child
	for kind in open closed; do
		case $kind in
		open) args=(--rate 200 --max-inflight 100) ;;
		closed) args=(--concurrency 1) ;;
		esac
		echo "== stall: $kind loop" >&2
		"$bin" run --tls 1.3 --resume off "${args[@]}" --duration 9s --iterations 3 --warmup 1 \
			--out "$out/stall-$kind.jsonl" --format markdown >"$out/stall-$kind.md" &
		pid=$!
		sleep 4.5 # start, the 3 s warm-up window, and into the first measured one
		child=$(pgrep -P "$pid" | head -1)
		kill -STOP "$child"
		sleep 1
		kill -CONT "$child"
		wait "$pid" || true
	done
	python3 -c '
import json, sys
print("loop\thandshakes\tp50 us\tp99 us\tp99.9 us\tmax us\tlate\tper-iteration samples us")
for kind in ("open", "closed"):
    r = json.loads(open(sys.argv[1] + "/stall-" + kind + ".jsonl").readline())
    t = r["phases"]["total"]
    print("%s\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%s\t%s" % (kind, r["handshakes"], r["p50_us"], r["p99_us"], r["p999_us"],
        t["max_us"], r.get("late", "-"), " ".join("%.0f" % v for v in r["samples_us"])))' "$out" | tee "$out/stall.txt"
}

section_hostile() {
	# What refusing hostile input costs: the ClientHello recorder over
	# 1-byte, 100-byte and whole records, an HTTP head trickled a byte a
	# read, and the bounded attacks of docs/security.md against serve,
	# serve --quic and proxy.
	echo "== hostile: recorder and HTTP head benchmarks" >&2
	go test -run '^$' -bench 'Recorder|HTTPReaderTrickle' -benchmem -count 5 ./keys ./bulk | tee "$out/hostile-bench.txt"
	echo "== hostile: attacks" >&2
	go run ./scripts/attack -bin "$bin" | tee "$out/hostile-attacks.md"
}

section_openloop() {
	echo "== openloop: the generator's start lateness" >&2
	go test ./loadgen -run '^$' -bench OpenLoopLateness -benchtime 5x -count 3 | tee "$out/openloop-lateness.txt"
	run openloop --tls 1.3 --resume off,on --rate 200,800 --duration 10s
}

section_shards() {
	echo "== shards: two shards on this machine, merged; BenchmarkMerge" >&2
	local dir="$work/shards"
	TLSBENCH="$bin" SHARDS_DIR="$dir" scripts/shards-local.sh 2 --tls 1.2,1.3 --resume off,on --concurrency 8 --duration 4s
	cp "$dir/merged.jsonl" "$out/shards.jsonl"
	for i in 0 1; do cp "$dir/shard-$i.jsonl" "$out/shards-$i.jsonl"; done
	"$bin" report --format markdown "$out/shards.jsonl" >"$out/shards.md"
	go test ./merge -run '^$' -bench Merge -benchtime 1x -count 3 | tee "$out/merge.txt"
}

section_sessionid() {
	# TLS 1.2 resumption by nginx's shared session cache against its
	# tickets, on one nginx that offers both (session-id sends no ticket
	# extension, so the cache alone answers), full and resumed, side by
	# side in one run with nginx's CPU; then the client's own cost of a
	# resumption by session ID against crypto/tls's by ticket.
	start_nginx
	run sessionid "${nginx_target[@]}" --tls 1.2 --resume off,on --resumption tickets,session-id
	stop_nginx
	go test ./client/sessionid -run '^$' -bench . -benchtime 1000x -count 6 | tee "$out/sessionid-harness.txt"
}

section_findrate() {
	# The highest rate with p99 under 20 ms, TLS 1.2 and 1.3, full and
	# resumed: the built-in server, then nginx (X25519 in TLS 1.3, as
	# in the nginx section).
	run findrate-builtin --find-rate --slo p99=20ms --tls 1.2,1.3 --resume off,on
	run findrate-builtin-x25519 --find-rate --slo p99=20ms --tls 1.3 --groups x25519 --resume off,on
	start_nginx
	run findrate-nginx-tls12 --find-rate --slo p99=20ms "${nginx_target[@]}" --tls 1.2 --resume off,on
	run findrate-nginx-tls13 --find-rate --slo p99=20ms "${nginx_target[@]}" --tls 1.3 --groups x25519 --resume off,on
	stop_nginx
	python3 -c '
import json, sys
for f in sys.argv[1:]:
    for line in open(f):
        r = json.loads(line)
        if r["kind"] == "rate-search":
            print("%s\t%s\t%s\t%s\t%s" % (f.split("/")[-1][:-6], r["name"], r.get("rate_sustained"), r.get("rate_failed"), r.get("search_limit", "")))' \
		"$out"/findrate-*.jsonl | tee "$out/findrate.txt"
}

sections=("$@")
if ((${#sections[@]} == 0)); then
	sections=(default harness mutual groups transport transports ciphers keycache nginx foreign jsse-keymanager jsse-keymanager-counted throughput proxy calibration stoprule stall openloop findrate sessionid shards server procs quic hostile cpu-aa instructions instructions-foreign)
fi
for s in "${sections[@]}"; do
	"section_$s"
done
