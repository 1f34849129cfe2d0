#!/usr/bin/env bash
# Builds the tlsbench release binaries into one directory: one static
# program (no cgo) per platform, paths trimmed so that the binary does not
# depend on where it was built, and a SHA256SUMS file to check them with.
#
#   scripts/release.sh OUT_DIR
#   VERSION=v1.2.0 scripts/release.sh dist
#
# OUT_DIR gets tlsbench-linux-amd64, tlsbench-linux-arm64,
# tlsbench-darwin-amd64, tlsbench-darwin-arm64, tlsbench-windows-amd64.exe
# and SHA256SUMS (check with: cd OUT_DIR && sha256sum -c SHA256SUMS).
#
# Environment:
#   VERSION    the version the binaries print and record (default: the one
#              the go command derives from the git checkout: a tag, or a
#              pseudo-version naming the commit; "devel" outside git)
#   PLATFORMS  OS/ARCH pairs to build, space-separated (default: the five
#              above)
#
# Run it from a plain git clone to have the revision stamped too: the go
# command reads no revision in a git worktree or an unpacked archive.
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: scripts/release.sh OUT_DIR (the directory the binaries and SHA256SUMS go to)" >&2
	exit 2
fi
out=$1
root=$(cd "$(dirname "$0")/.." && pwd)
platforms=${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64}

if ! command -v go >/dev/null; then
	echo "release.sh: needs the go command (Go 1.26 or later) on PATH" >&2
	exit 1
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

ldflags=""
if [ -n "${VERSION:-}" ]; then
	ldflags="-X github.com/tlsbench/tlsbench/results.Version=$VERSION"
fi

names=()
for p in $platforms; do
	goos=${p%/*} goarch=${p#*/}
	name=tlsbench-$goos-$goarch
	[ "$goos" = windows ] && name=$name.exe
	echo "building $name" >&2
	# -buildvcs=auto: stamp the revision when the checkout allows it, even
	# if GOFLAGS turns stamping off.
	(cd "$root" && CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch \
		go build -trimpath -buildvcs=auto -ldflags "$ldflags" -o "$out/$name" ./cmd/tlsbench)
	names+=("$name")
done

cd "$out"
if command -v sha256sum >/dev/null; then
	sha256sum "${names[@]}" > SHA256SUMS
else
	shasum -a 256 "${names[@]}" > SHA256SUMS
fi
echo "wrote ${#names[@]} binaries and SHA256SUMS to $out" >&2
