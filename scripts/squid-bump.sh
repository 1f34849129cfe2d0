#!/usr/bin/env bash
# squid-bump.sh start|stop PORT DIR [ORIGIN_CA]
#
# Runs Squid as a TLS-intercepting ("SSL bump") proxy on 127.0.0.1:PORT,
# for tests and benchmarks that measure a real bump proxy next to
# tlsbench's own.
#
# start writes a minimal bump configuration into DIR (squid.conf), with
# DIR/ca.pem and DIR/ca.key as the CA that signs the certificates Squid
# mints (generated with openssl when DIR has none; clients must trust
# DIR/ca.pem), initialises the certificate database DIR/ssl_db, starts
# Squid in the background and returns once it accepts connections; its
# process id is in DIR/squid.pid. Squid verifies origins against
# ORIGIN_CA (the argument, or the environment variable ORIGIN_CA; the
# system roots when neither is given). Only loopback clients may use it;
# CONNECT goes to any port on loopback, except the ports listed in
# SQUID_DENY_PORTS (space-separated). Nothing is cached and no access log
# is written; Squid's own log is DIR/cache.log.
#
# On its bumping port Squid answers every CONNECT with 200, refused or not:
# it bumps the connection and serves its error (403, 503...) as the answer
# to the first request inside the TLS it terminates. SQUID_PLAIN_PORT adds
# a port that does not bump, where CONNECT gets its real status (403 for a
# refused destination, 503 when the origin does not accept) and succeeds
# as a plain tunnel.
#
# stop ends the Squid whose process id is in DIR/squid.pid and waits for
# it to exit.
#
# As root, Squid will not keep root's privileges: it runs as the user
# SQUID_USER (default proxy, else nobody), who is given DIR.
set -euo pipefail

usage() {
	echo "usage: $0 start|stop PORT DIR [ORIGIN_CA]" >&2
	exit 2
}

(($# >= 3)) || usage
action=$1 port=$2 dir=$3
origin_ca=${4:-${ORIGIN_CA:-}}
[[ $port =~ ^[0-9]+$ ]] && ((port > 0 && port < 65536)) || { echo "$0: port $port: want 1..65535" >&2; exit 2; }

# find_tool prints the path of a program, looking in the sbin directories a
# non-root PATH often lacks.
find_tool() {
	local d
	command -v "$1" 2>/dev/null && return
	for d in /usr/sbin /sbin /usr/local/sbin /usr/lib/squid; do
		[[ -x $d/$1 ]] && { echo "$d/$1"; return; }
	done
	echo "$0: $1 is not installed (Debian: apt-get install squid-openssl)" >&2
	exit 1
}

# accepting succeeds when something accepts connections on the port.
accepting() { (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; }

# alive succeeds while the process in the pid file runs.
alive() { [[ -n ${1:-} ]] && kill -0 "$1" 2>/dev/null; }

stop() {
	local pid i
	pid=$(cat "$dir/squid.pid" 2>/dev/null || true)
	pid=${pid//[^0-9]/}
	if ! alive "$pid"; then
		return 0
	fi
	kill -TERM "$pid"
	# shutdown_lifetime is 0: Squid ends within a second or two.
	for ((i = 0; i < 100; i++)); do
		alive "$pid" || return 0
		sleep 0.1
	done
	echo "$0: Squid (pid $pid) did not stop within 10 s; killing it" >&2
	kill -KILL "$pid" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		alive "$pid" || return 0
		sleep 0.1
	done
	echo "$0: Squid (pid $pid) survived SIGKILL" >&2
	return 1
}

# make_ca writes a CA for the minted certificates, its key readable by the
# owner only.
make_ca() {
	local openssl
	openssl=$(find_tool openssl)
	(
		umask 077
		"$openssl" req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
			-keyout "$dir/ca.key" -out "$dir/ca.pem" -days 30 \
			-subj "/CN=tlsbench Squid bump CA" \
			-addext "basicConstraints=critical,CA:TRUE" \
			-addext "keyUsage=critical,keyCertSign,cRLSign" 2>"$dir/openssl.log"
	) || { echo "$0: could not generate the CA:" >&2; cat "$dir/openssl.log" >&2; exit 1; }
	chmod 0644 "$dir/ca.pem"
}

write_config() {
	local user_line="" deny_acl="" deny_rule="" outgoing="" plain=""
	if [[ -n $run_as ]]; then
		user_line="cache_effective_user $run_as"
	fi
	if [[ -n ${SQUID_DENY_PORTS:-} ]]; then
		deny_acl="acl denied_ports port $SQUID_DENY_PORTS"
		deny_rule="http_access deny CONNECT denied_ports"
	fi
	if [[ -n ${SQUID_PLAIN_PORT:-} ]]; then
		plain="http_port 127.0.0.1:$SQUID_PLAIN_PORT"
	fi
	if [[ -n $origin_ca ]]; then
		outgoing="tls_outgoing_options cafile=$dir/origin-ca.pem"
	fi
	cat >"$dir/squid.conf" <<EOF
# written by scripts/squid-bump.sh: a TLS bump proxy for loopback tests
http_port 127.0.0.1:$port ssl-bump generate-host-certificates=on dynamic_cert_mem_cache_size=4MB tls-cert=$dir/ca.pem tls-key=$dir/ca.key
$plain
sslcrtd_program $certgen -s $dir/ssl_db -M 16MB
sslcrtd_children 4 startup=1 idle=1
acl step1 at_step SslBump1
ssl_bump peek step1
ssl_bump bump all
$outgoing

acl loopback_dst dst 127.0.0.0/8 ::1
acl loopback_src src 127.0.0.0/8 ::1
$deny_acl
$deny_rule
http_access allow loopback_src loopback_dst
http_access deny all

cache deny all
cache_mem 0 MB
access_log none
cache_store_log none
cache_log $dir/cache.log
logfile_rotate 0
pid_filename $dir/squid.pid
coredump_dir $dir
netdb_filename none
pinger_enable off
digest_generation off
shutdown_lifetime 0 seconds
visible_hostname localhost
$user_line
EOF
}

start() {
	local squid pid i
	if [[ -n $origin_ca && ! -r $origin_ca ]]; then
		echo "$0: origin CA $origin_ca: not readable" >&2
		exit 2
	fi
	squid=$(find_tool squid)
	certgen=$(find_tool security_file_certgen)
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	if [[ -e $dir/squid.pid ]] && alive "$(cat "$dir/squid.pid")"; then
		echo "$0: a Squid from $dir already runs (pid $(cat "$dir/squid.pid")); stop it first" >&2
		exit 1
	fi
	rm -f "$dir/squid.pid"
	if [[ ! -s $dir/ca.pem || ! -s $dir/ca.key ]]; then
		make_ca
	fi
	if [[ -n $origin_ca ]]; then
		cp "$origin_ca" "$dir/origin-ca.pem"
	fi
	run_as=""
	if ((EUID == 0)); then
		# Squid refuses to keep root's privileges: it needs a user who
		# can read its configuration and write its logs in DIR.
		run_as=${SQUID_USER:-}
		if [[ -z $run_as ]]; then
			if id proxy >/dev/null 2>&1; then run_as=proxy; else run_as=nobody; fi
		fi
	fi
	rm -rf "$dir/ssl_db"
	"$certgen" -c -s "$dir/ssl_db" -M 16MB >"$dir/certgen.log" 2>&1 ||
		{ echo "$0: initialising the certificate database failed:" >&2; cat "$dir/certgen.log" >&2; exit 1; }
	write_config
	: >"$dir/cache.log"
	if [[ -n $run_as ]]; then
		chown -R "$run_as" "$dir"
		if command -v setpriv >/dev/null 2>&1 &&
			! setpriv --reuid="$run_as" --regid="$(id -g "$run_as")" --clear-groups test -w "$dir/cache.log"; then
			echo "$0: $dir: Squid runs as $run_as, who cannot reach it (a parent directory is private); use a directory under /tmp" >&2
			exit 1
		fi
		# The key stays readable by its owner only (now the Squid user).
		chmod 0600 "$dir/ca.key"
	fi
	if ! "$squid" -k parse -f "$dir/squid.conf" >"$dir/parse.log" 2>&1; then
		echo "$0: Squid rejects the configuration:" >&2
		grep -E 'FATAL|ERROR' "$dir/parse.log" >&2 || tail -5 "$dir/parse.log" >&2
		exit 1
	fi
	# -N: no daemon and no kid processes, so that the pid Squid writes
	# is the process that relays (what a CPU sampler must watch).
	"$squid" -N -f "$dir/squid.conf" >"$dir/squid.out" 2>&1 </dev/null &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		if ! alive "$pid"; then
			wait "$pid" || true
			echo "$0: Squid exited before accepting connections:" >&2
			grep -hE 'FATAL|ERROR|Bungled' "$dir/cache.log" "$dir/squid.out" >&2 || tail -5 "$dir/cache.log" >&2
			exit 1
		fi
		if accepting && [[ -s $dir/squid.pid ]]; then
			echo "$pid"
			return 0
		fi
		sleep 0.1
	done
	echo "$0: Squid (pid $pid) does not accept on 127.0.0.1:$port after 20 s; stopping it" >&2
	echo "$pid" >"$dir/squid.pid"
	stop
	exit 1
}

case $action in
start) start ;;
stop) stop ;;
*) usage ;;
esac
