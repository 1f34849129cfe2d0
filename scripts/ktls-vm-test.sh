#!/usr/bin/env bash
# ktls-vm-test.sh: run the internal/ktls tests inside a small VM whose kernel
# has kernel TLS (this machine's kernel lacks CONFIG_TLS); how kTLS works
# here is in internal/ktls/doc.go.
#
#   kernel:    Debian's linux-image-*-cloud-amd64 (CONFIG_TLS=m), fetched with
#              apt-get download and unpacked with dpkg-deb -x, cached per
#              package version under $TLSBENCH_VM_CACHE
#   initramfs: busybox-static, net/tls + crypto modules (depmod -b),
#              /etc/hosts (localhost, the name the proxy tests CONNECT to),
#              and three static test binaries (CGO_ENABLED=0 go test -c -trimpath):
#              ./internal/ktls/ (the kTLS package: record layer against the
#              kernel, splice relays between kTLS connections with tls_stat
#              per leg, key proofs refusing tampered keys, SupportedFor),
#              ./proxy/ (its TestVM* tests: the proxy in-process with kTLS
#              on both legs relaying by splice, byte-exact, tls_stat per
#              leg, no payload in user space; a client's close_notify and
#              alert mid-stream; a TLS 1.2 resumed client leg falling back
#              with auto and refused with on) and ./runner/ (its TestVM*
#              tests: small `tlsbench run --mode throughput` matrices
#              through the runner with the built-in server as a child
#              process, directly and through the built-in proxy as a child
#              process with kTLS on, auto and off on its legs)
#   boot:      qemu-system-x86_64 -accel tcg (nested KVM fails here)
#
# /init runs the three test binaries with TLSBENCH_KTLS_VM=1, which makes
# the TestVM* tests mandatory (they fail, not skip, without kTLS), then
# prints "KTLS-VM-RESULT rc=N" (N: the first non-zero exit status, else 0).
# This script exits with N; no marker, or no passed TestVMThroughput and
# TestVMProxyThroughput when the runner's default pattern ran (or no passed
# TestVMProxySplice when the proxy's did), means failure. The summary
# prints the KTLS-BENCH, KTLS-RUN and KTLS-PROXY lines: under TCG the
# figures in them are functional evidence only, not performance.
#
# Environment:
#   TLSBENCH_VM_CACHE        cache dir (default ~/.cache/tlsbench-vm)
#   TLSBENCH_VM_KERNEL_PKG   kernel package (default: what linux-image-cloud-amd64 depends on)
#   TLSBENCH_VM_TIMEOUT      seconds before the VM is killed (default 600)
#   TLSBENCH_VM_SMP          virtual CPUs (default 2)
#   TLSBENCH_VM_TEST_RUN     -test.run pattern of ./internal/ktls (default: all tests)
#   TLSBENCH_VM_RUNNER_RUN   -test.run pattern of ./runner (default: ^TestVM)
#   TLSBENCH_VM_PROXY_RUN    -test.run pattern of ./proxy (default: ^TestVM)
#   TLSBENCH_KTLS_BENCH_MB   MiB per throughput measurement (default 4)
#   TLSBENCH_VM_THROUGHPUT_KB KiB per connection and iteration of TestVMThroughput (default 1024)
#   TLSBENCH_VM_PROXY_KB     KiB per connection and iteration of TestVMProxyThroughput (default 1024)
#   TLSBENCH_VM_KEEP         keep the work dir (initramfs, log) when set
#
# Needs: qemu-system-x86 busybox-static cpio kmod (and apt, dpkg, go, gzip).
set -euo pipefail

log() { printf 'ktls-vm-test: %s\n' "$*" >&2; }
die() { log "FAIL: $*"; exit 1; }

start=$(date +%s)
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${TLSBENCH_VM_CACHE:-${HOME:-/root}/.cache/tlsbench-vm}
vm_timeout=${TLSBENCH_VM_TIMEOUT:-600}
smp=${TLSBENCH_VM_SMP:-2}
test_run=${TLSBENCH_VM_TEST_RUN:-}
runner_run=${TLSBENCH_VM_RUNNER_RUN:-^TestVM}
proxy_run=${TLSBENCH_VM_PROXY_RUN:-^TestVM}
bench_mb=${TLSBENCH_KTLS_BENCH_MB:-4}
throughput_kb=${TLSBENCH_VM_THROUGHPUT_KB:-1024}
proxy_kb=${TLSBENCH_VM_PROXY_KB:-1024}
# Let go test's own timeout fire (with a goroutine dump) before the VM is killed.
test_timeout=$((vm_timeout > 120 ? vm_timeout - 60 : vm_timeout * 3 / 4))

# child_cpu prints the CPU time, in hundredths of a second, of this
# script's children that have ended (user and system, from /proc).
child_cpu() {
	local hz stat
	hz=$(getconf CLK_TCK)
	stat=$(cat /proc/$$/stat)
	stat=${stat##*) }
	# After "pid (comm) ", cutime and cstime are the 14th and 15th fields.
	awk -v hz="$hz" '{print int(($14 + $15) * 100 / hz)}' <<<"$stat"
}

need() { command -v "$1" >/dev/null 2>&1 || die "missing $1: apt-get install -y $2"; }
need qemu-system-x86_64 qemu-system-x86
need cpio cpio
need depmod kmod
need modprobe kmod
need dpkg-deb dpkg
need apt-get apt
need apt-cache apt
need go golang
need gzip gzip
need timeout coreutils
busybox=$(command -v busybox || true)
[ -n "$busybox" ] || die "missing busybox: apt-get install -y busybox-static"
if ldd "$busybox" >/dev/null 2>&1; then
	die "$busybox is dynamically linked: apt-get install -y busybox-static"
fi

# ---- kernel: download and unpack once per package version -------------------
meta=linux-image-cloud-amd64
pkg=${TLSBENCH_VM_KERNEL_PKG:-$(apt-cache depends "$meta" 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}')}
[ -n "$pkg" ] || die "cannot resolve $meta to a kernel package (apt-get update first?)"
ver=$(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ {print $2; exit}')
[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "no candidate version for $pkg (apt-get update first?)"
kdir=$cache/${pkg}_${ver}
mkdir -p "$cache"
if [ ! -f "$kdir/.complete" ]; then
	log "fetching $pkg=$ver"
	dl=$(mktemp -d "$cache/.dl.XXXXXX")
	# apt-get download writes into the current directory.
	if ! (cd "$dl" && apt-get download -q "$pkg=$ver" >/dev/null 2>"$dl/apt.err"); then
		cat "$dl/apt.err" >&2
		rm -rf "$dl"
		die "apt-get download $pkg=$ver failed"
	fi
	dpkg-deb -x "$dl"/*.deb "$dl/root"
	kv=$(ls "$dl/root/lib/modules")
	# Keep only what the VM needs: the kernel image and the TLS/crypto modules.
	keep=$dl/keep
	mkdir -p "$keep/boot" "$keep/lib/modules/$kv/kernel"
	cp "$dl/root/boot/vmlinuz-$kv" "$keep/boot/"
	for d in net/tls crypto arch/x86/crypto lib/crypto; do
		mkdir -p "$keep/lib/modules/$kv/kernel/$d"
		cp -a "$dl/root/lib/modules/$kv/kernel/$d/." "$keep/lib/modules/$kv/kernel/$d/"
	done
	cp "$dl/root/lib/modules/$kv"/modules.{order,builtin,builtin.modinfo} "$keep/lib/modules/$kv/"
	depmod -b "$keep" "$kv"
	rm -rf "$kdir"
	mv "$keep" "$kdir"
	rm -rf "$dl"
	touch "$kdir/.complete"
	# Older cached versions are no longer needed.
	for old in "$cache"/linux-image-*; do
		[ "$old" = "$kdir" ] || rm -rf "$old"
	done
fi
kver=$(ls "$kdir/lib/modules")
vmlinuz=$kdir/boot/vmlinuz-$kver
[ -f "$vmlinuz" ] || die "no kernel image in $kdir"
log "kernel $kver ($pkg $ver) from $kdir"

work=$(mktemp -d "${TMPDIR:-/tmp}/ktls-vm.XXXXXX")
if [ -z "${TLSBENCH_VM_KEEP:-}" ]; then
	trap 'rm -rf "$work"' EXIT
else
	log "work dir $work"
fi

# ---- static test binaries -----------------------------------------------------
# One go command for the three, so that their packages build in parallel;
# -o DIR/ names each binary after its package (ktls.test, runner.test,
# proxy.test). The flags are the release's (no cgo, -trimpath), with which
# the tests build every tlsbench program they run (internal/testbuild):
# scripts/test.sh starts this first, and the tests then find most of
# those packages compiled.
log "building the static test binaries"
phase=$(date +%s)
(cd "$repo" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go test -c -trimpath -o "$work/" ./internal/ktls/ ./runner/ ./proxy/)
for b in ktls runner proxy; do
	[ -x "$work/$b.test" ] || die "go test -c wrote no $b.test"
done
log "built in $(($(date +%s) - phase))s"

# ---- initramfs ------------------------------------------------------------------
root=$work/initramfs
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,etc,lib/modules}
cp "$busybox" "$root/bin/busybox"
for applet in sh mount ip insmod modprobe poweroff cat echo sleep sync uname cut tr; do
	ln -s busybox "$root/bin/$applet"
done
ln -s ../bin/busybox "$root/sbin/modprobe" # the kernel's request_module helper
cp -a "$kdir/lib/modules/$kver" "$root/lib/modules/"
depmod -b "$root" "$kver"
cp "$work/ktls.test" "$root/ktls.test"
cp "$work/runner.test" "$root/runner.test"
cp "$work/proxy.test" "$root/proxy.test"
# Without it "localhost" would go to a DNS server the VM does not have.
printf '127.0.0.1 localhost\n::1 localhost\n' >"$root/etc/hosts"

# Load order resolved on the host by kmod (modprobe -D), so the VM only needs
# busybox insmod. tls is required; the crypto modules are what kTLS uses for
# AES-GCM (aesni, gcm, ghash) and ChaCha20-Poly1305 (rfc7539 template).
: >"$root/etc/modules.load"
for m in tls gcm ctr ghash_generic ghash_clmulni_intel aesni_intel chacha20poly1305 \
	chacha_generic chacha_x86_64 poly1305_generic poly1305_x86_64; do
	if ! deps=$(modprobe -d "$root" -S "$kver" -D "$m" 2>/dev/null); then
		[ "$m" = tls ] && die "module tls not found in $pkg"
		log "note: module $m not available, skipped"
		continue
	fi
	while read -r kind path; do
		[ "$kind" = insmod ] || continue
		rel=${path#"$root"/}
		grep -qxF "$rel" "$root/etc/modules.load" || echo "$rel" >>"$root/etc/modules.load"
	done <<<"$deps"
done

cat >"$root/init" <<EOF
#!/bin/sh
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
ip link set lo up
while read -r m; do insmod "/\$m" || echo "ktls-vm: insmod \$m failed"; done </etc/modules.load
echo "ktls-vm: kernel \$(uname -r); modules: \$(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
cd /tmp
TLSBENCH_KTLS_VM=1 TLSBENCH_KTLS_BENCH_MB=$bench_mb /ktls.test -test.v -test.timeout ${test_timeout}s ${test_run:+-test.run '$test_run'}
rc=\$?
echo "KTLS-VM-BINARY ktls.test rc=\$rc"
TLSBENCH_KTLS_VM=1 /proxy.test -test.v -test.timeout ${test_timeout}s -test.run '$proxy_run'
rc2=\$?
echo "KTLS-VM-BINARY proxy.test rc=\$rc2"
[ "\$rc" = 0 ] && rc=\$rc2
TLSBENCH_KTLS_VM=1 TLSBENCH_VM_THROUGHPUT_KB=$throughput_kb TLSBENCH_VM_PROXY_KB=$proxy_kb /runner.test -test.v -test.timeout ${test_timeout}s -test.run '$runner_run'
rc2=\$?
echo "KTLS-VM-BINARY runner.test rc=\$rc2"
[ "\$rc" = 0 ] && rc=\$rc2
echo "KTLS-VM-RESULT rc=\$rc"
sync
poweroff -f
EOF
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1 >"$work/initrd.gz")
log "initramfs $(du -h "$work/initrd.gz" | cut -f1), modules: $(tr '\n' ' ' <"$root/etc/modules.load" | sed 's#lib/modules/[^/]*/kernel/##g')"

# ---- boot ---------------------------------------------------------------------------
log "booting (TCG, $smp vCPU, timeout ${vm_timeout}s)"
vmlog=$work/console.log
phase=$(date +%s)
cpu0=$(child_cpu)
set +e
# --foreground keeps qemu in this script's process group, so that ending
# the group (scripts/test.sh does on an early exit) ends qemu too.
timeout --foreground --kill-after=10 "$vm_timeout" qemu-system-x86_64 -accel tcg -cpu max -m 512 -smp "$smp" \
	-nic none -nographic -no-reboot \
	-kernel "$vmlinuz" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 quiet panic=-1" </dev/null 2>&1 | tr -d '\r' | tee "$vmlog"
qemu_rc=${PIPESTATUS[0]}
set -e
vm_wall=$(($(date +%s) - phase))
vm_cpu=$(($(child_cpu) - cpu0))

elapsed=$(($(date +%s) - start))
echo
echo "==== kTLS VM summary ===="
# Under TCG the VM is CPU-bound: what it took of the machine, for whoever
# runs other work beside it.
echo "ktls-vm: the VM ran ${vm_wall}s and used $((vm_cpu / 100)).$(printf %02d $((vm_cpu % 100))) CPU-seconds"
grep -E '^ *(--- FAIL)' "$vmlog" || true
grep -E 'KTLS-BENCH' "$vmlog" | sed -E 's/^.*(KTLS-BENCH)/\1/' || true
grep -E 'KTLS-RUN' "$vmlog" | sed -E 's/^.*(KTLS-RUN)/\1/' || true
grep -E 'KTLS-PROXY' "$vmlog" | sed -E 's/^.*(KTLS-PROXY)/\1/' || true
grep -E 'KTLS-VM-BINARY' "$vmlog" || true
marker=$(grep -Eo 'KTLS-VM-RESULT rc=[0-9]+' "$vmlog" | tail -1 || true)
if [ -z "$marker" ]; then
	[ "$qemu_rc" = 124 ] && die "VM timed out after ${vm_timeout}s without a result (${elapsed}s total)"
	die "no KTLS-VM-RESULT marker in the VM output (qemu exit $qemu_rc, ${elapsed}s total)"
fi
rc=${marker##*=}
require_pass() { # pattern that ran, its default, test, what went untested
	if [ "$rc" = 0 ] && [ "$1" = "$2" ] && ! grep -qE "^--- PASS: $3 " "$vmlog"; then
		log "$3 did not pass (not run?): $4 went untested"
		rc=1
	fi
}
require_pass "$runner_run" "^TestVM" TestVMThroughput "the throughput runner"
require_pass "$runner_run" "^TestVM" TestVMProxyThroughput "the runner through the proxy with kTLS"
require_pass "$proxy_run" "^TestVM" TestVMProxySplice "the proxy's splice relay"
pass=$(grep -cE '^ *--- PASS' "$vmlog" || true)
fail=$(grep -cE '^ *--- FAIL' "$vmlog" || true)
skip=$(grep -cE '^ *--- SKIP' "$vmlog" || true)
echo "ktls-vm: $pass passed, $fail failed, $skip skipped"
if [ "$rc" = 0 ]; then
	log "PASS: every kTLS test passed in the VM (${elapsed}s)"
else
	log "FAIL: kTLS tests failed in the VM (rc=$rc, ${elapsed}s)"
fi
exit "$rc"
